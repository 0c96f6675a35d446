// What the image pipeline runs on, built from the service for the API routes and the browser app alike: the shared
// call dependencies and the service's image engines.
import type { Service } from '../service.ts';
import type { ImageDeps } from './pipeline.ts';

export function imageDepsOf(svc: Pick<Service, 'chatDeps' | 'imageEngines'>): ImageDeps {
  return { ...svc.chatDeps, engines: svc.imageEngines };
}
