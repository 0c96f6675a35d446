// A rembg server (`rembg s`, danielgatis/rembg: MIT) as the real background remover: POST /api/remove with the image
// as the multipart field `file` (and `model` when the catalogue names one); the answer is a PNG with transparency.
import { Blob } from 'node:buffer';
import { FormData } from 'undici';
import { EngineError } from '../text/types.ts';
import type { BackgroundJob, ImageEngine } from './engine.ts';
import { sniffImage } from './inputs.ts';
import { Upstream } from './upstream.ts';

export interface RembgOptions {
  baseUrl: string;
  model?: string;
  apiKey?: string;
  timeoutMs?: number;
  connections: number;
}

export function createRembgEngine(o: RembgOptions): ImageEngine {
  const up = new Upstream({
    baseUrl: o.baseUrl,
    authorization: o.apiKey ? `Bearer ${o.apiKey}` : undefined,
    timeoutMs: o.timeoutMs,
    connections: o.connections,
    name: 'the rembg upstream',
  });
  return {
    router: 'rembg',
    async removeBackground(job: BackgroundJob) {
      const type = sniffImage(job.image) ?? 'png';
      const form = new FormData();
      form.append('file', new Blob([job.image], { type: `image/${type}` }), `image.${type === 'jpeg' ? 'jpg' : type}`);
      if (o.model) form.set('model', o.model);
      const deadline = up.deadline(job.signal);
      const res = await up.call('POST', '/api/remove', { form, signal: deadline.signal }, deadline);
      if (res.status < 200 || res.status > 299) throw up.failure(res);
      if (sniffImage(res.body) !== 'png') throw new EngineError('failed', 'the rembg upstream did not answer with a PNG');
      return { bytes: res.body };
    },
    close: () => up.close(),
  };
}
