// AUTOMATIC1111's Stable Diffusion web UI (and Forge, which keeps its API) as an upstream: POST /sdapi/v1/txt2img
// for generation (batch_size = variants, seeds consecutive), /sdapi/v1/img2img for edits (a second image is the
// inpainting mask), /sdapi/v1/extra-single-image for upscaling. The checkpoint is chosen per request with
// override_settings (restored afterwards), never by switching the server's global option. The protocol carries no
// content flag, so images from it are unchecked. `--api-auth user:pass` servers take the credential from apiKeyEnv.
import { EngineError } from '../text/types.ts';
import type { EditJob, GenerateJob, ImageEngine, UpscaleJob } from './engine.ts';
import { withStyle } from './openai-images.ts';
import { base64Image, Upstream } from './upstream.ts';

export interface A1111Options {
  baseUrl: string;
  /** `user:password` for --api-auth. */
  credential?: string;
  checkpoint?: string;
  sampler?: string;
  upscaler?: string;
  denoisingStrength?: number;
  timeoutMs?: number;
  connections: number;
}

export function createA1111Engine(o: A1111Options): ImageEngine {
  const up = new Upstream({
    baseUrl: o.baseUrl,
    authorization: o.credential ? `Basic ${Buffer.from(o.credential).toString('base64')}` : undefined,
    timeoutMs: o.timeoutMs,
    connections: o.connections,
    name: 'the AUTOMATIC1111 upstream',
  });
  const overrides = o.checkpoint ? { override_settings: { sd_model_checkpoint: o.checkpoint }, override_settings_restore_afterwards: true } : {};
  const sampler = o.sampler ? { sampler_name: o.sampler } : {};

  async function post(path: string, json: unknown, signal: AbortSignal): Promise<any> {
    const deadline = up.deadline(signal);
    return up.json('POST', path, { json, signal: deadline.signal }, deadline);
  }

  return {
    router: 'automatic1111',
    async generate(job: GenerateJob) {
      const j = await post(
        '/sdapi/v1/txt2img',
        {
          prompt: withStyle(job.prompt, job.stylePreset),
          negative_prompt: job.negativePrompt ?? '',
          seed: job.seed,
          steps: job.steps,
          cfg_scale: job.cfgScale ?? 7,
          width: job.width,
          height: job.height,
          batch_size: job.variants,
          n_iter: 1,
          save_images: false,
          send_images: true,
          ...sampler,
          ...overrides,
        },
        job.signal,
      );
      if (!Array.isArray(j?.images) || !j.images.length) throw new EngineError('failed', 'the AUTOMATIC1111 upstream answered without images');
      // With its grid option on, the server puts a grid of the batch first: the batch itself is the last `variants`.
      return (j.images as unknown[]).slice(-job.variants).map((b64) => ({ bytes: base64Image(b64, 'the AUTOMATIC1111 upstream') }));
    },
    async edit(job: EditJob) {
      const [init, mask] = job.images;
      const j = await post(
        '/sdapi/v1/img2img',
        {
          init_images: [init.toString('base64')],
          ...(mask ? { mask: mask.toString('base64'), inpainting_fill: 1, inpaint_full_res: false } : {}),
          prompt: job.prompt,
          seed: job.seed,
          denoising_strength: o.denoisingStrength ?? 0.6,
          width: job.width,
          height: job.height,
          batch_size: 1,
          save_images: false,
          send_images: true,
          ...sampler,
          ...overrides,
        },
        job.signal,
      );
      if (!Array.isArray(j?.images) || !j.images.length) throw new EngineError('failed', 'the AUTOMATIC1111 upstream answered without an image');
      return { bytes: base64Image(j.images.at(-1), 'the AUTOMATIC1111 upstream') };
    },
    async upscale(job: UpscaleJob) {
      const j = await post(
        '/sdapi/v1/extra-single-image',
        {
          image: job.image.toString('base64'),
          resize_mode: 1,
          upscaling_resize_w: job.outWidth,
          upscaling_resize_h: job.outHeight,
          upscaling_crop: false,
          upscaler_1: o.upscaler ?? 'R-ESRGAN 4x+',
        },
        job.signal,
      );
      return { bytes: base64Image(j?.image, 'the AUTOMATIC1111 upstream') };
    },
    close: () => up.close(),
  };
}
