// What the image pipeline runs on, built from the service for the API routes and the browser app alike: the shared
// call dependencies and the image engines of the loaded catalogue.
import { imageEnginesFor } from '../engines/images/registry.ts';
import type { Service } from '../service.ts';
import type { ImageDeps } from './pipeline.ts';

export function imageDepsOf(svc: Pick<Service, 'chatDeps' | 'catalogue' | 'config'>): ImageDeps {
  return { ...svc.chatDeps, engines: imageEnginesFor(svc.catalogue, svc.config.catalogueVar) };
}
