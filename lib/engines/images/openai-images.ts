// The OpenAI images API as an upstream (OpenAI, Azure OpenAI, LocalAI and the hosted providers that copy it):
// POST /images/generations (JSON) and POST /images/edits (multipart, `image` or `image[]`), always asking for
// b64_json so no second fetch is needed. The protocol's own content flag is read where the upstream sends one: Azure's
// per-image `content_filter_results` (a category filtered, or sexual content of medium or high severity, flags the
// image); an upstream that sends none leaves the image unchecked. A refusal under the upstream's content policy
// (`content_policy_violation`, `moderation_blocked`) is a ContentPolicyError.
import { Blob } from 'node:buffer';
import { FormData } from 'undici';
import { EngineError } from '../text/types.ts';
import { ContentPolicyError, type EditJob, type EngineImage, type GenerateJob, type ImageEngine } from './engine.ts';
import { sniffImage } from './inputs.ts';
import { base64Image, Upstream, upstreamMessage } from './upstream.ts';

export interface OpenAIImagesOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
  connections: number;
}

const POLICY_CODES = new Set(['content_policy_violation', 'moderation_blocked', 'content_filter']);

/** Azure's content filter verdict for one image: undefined when the upstream sent none. */
export function contentFlag(item: Record<string, any>): boolean | undefined {
  const results = item?.content_filter_results;
  if (!results || typeof results !== 'object') return undefined;
  return Object.entries(results as Record<string, any>).some(
    ([category, r]) => r?.filtered === true || (category === 'sexual' && (r?.severity === 'medium' || r?.severity === 'high')),
  );
}

/** Style presets are folded into the prompt: the OpenAI API has no style field of its own. */
export const withStyle = (prompt: string, style: string | undefined) => (style ? `${prompt}, ${style.toLowerCase()} style` : prompt);

export function createOpenAIImagesEngine(o: OpenAIImagesOptions): ImageEngine {
  const up = new Upstream({
    baseUrl: o.baseUrl,
    authorization: o.apiKey ? `Bearer ${o.apiKey}` : undefined,
    timeoutMs: o.timeoutMs,
    connections: o.connections,
    name: 'the OpenAI images upstream',
  });

  async function images(path: string, body: { json?: unknown; form?: FormData }, signal: AbortSignal): Promise<EngineImage[]> {
    const deadline = up.deadline(signal);
    const res = await up.call('POST', path, { ...body, signal: deadline.signal }, deadline);
    if (res.status < 200 || res.status > 299) {
      let code: unknown;
      try {
        code = JSON.parse(res.body.toString('utf8'))?.error?.code;
      } catch {
        code = undefined;
      }
      if (typeof code === 'string' && POLICY_CODES.has(code)) throw new ContentPolicyError(upstreamMessage(res.body) ?? 'refused under the content policy');
      throw up.failure(res);
    }
    let j: any;
    try {
      j = JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new EngineError('failed', 'the OpenAI images upstream answered with something that is not JSON');
    }
    if (!Array.isArray(j?.data) || !j.data.length) throw new EngineError('failed', 'the OpenAI images upstream answered without images');
    return (j.data as Record<string, any>[]).map((item) => {
      if (item?.b64_json === undefined && typeof item?.url === 'string') {
        throw new EngineError('failed', 'the OpenAI images upstream answered with URLs although b64_json was asked for');
      }
      return { bytes: base64Image(item?.b64_json, 'the OpenAI images upstream'), flagged: contentFlag(item) };
    });
  }

  return {
    router: 'openai-images',
    async generate(job: GenerateJob) {
      const json = {
        model: o.model,
        prompt: withStyle(job.prompt, job.stylePreset),
        n: job.variants,
        size: `${job.width}x${job.height}`,
        response_format: 'b64_json',
        user: job.requestId,
      };
      return images('/images/generations', { json }, job.signal);
    },
    async edit(job: EditJob) {
      const form = new FormData();
      form.set('model', o.model);
      form.set('prompt', job.prompt);
      form.set('n', '1');
      form.set('size', `${job.width}x${job.height}`);
      form.set('response_format', 'b64_json');
      // One image is `image`; several (gpt-image-1's multi-image edits) are `image[]`.
      const field = job.images.length > 1 ? 'image[]' : 'image';
      job.images.forEach((bytes, i) => {
        const type = sniffImage(bytes) ?? 'png';
        form.append(field, new Blob([bytes], { type: `image/${type}` }), `image-${i}.${type === 'jpeg' ? 'jpg' : type}`);
      });
      const [first] = await images('/images/edits', { form }, job.signal);
      return first;
    },
    close: () => up.close(),
  };
}
