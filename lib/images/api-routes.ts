// The image endpoints: POST /image/generate and /images/generations (JSON), /image/edit, /image/multi-edit,
// /image/upscale and /image/background-remove (JSON or multipart). A key or a signed-in wallet, like chat; the
// pipeline (lib/images) validates, bills and runs; this file reads the body and writes the answer: JSON
// (compressed when accepted) or the image itself, with the model, balance, safety and seed headers.
import { ApiError } from '../api/errors.ts';
import { balanceHeaders, imageHeaders, modelHeaders } from '../api/headers.ts';
import { type ImageDeps, type ImageResult, runBackgroundRemove, runEdit, runGenerate, runMultiEdit, runOpenAIGenerations, runUpscale } from './pipeline.ts';
import { imageDepsOf } from './deps.ts';
import { fromForm } from './requests.ts';
import { isJsonContentType } from '../http/body.ts';
import { jsonBody, principalOf, type RequestCtx, setBalanceRemaining, withWalletCredit } from '../http/context.ts';
import { isMultipart, readMultipart } from '../http/multipart.ts';
import { json, raw, type Reply } from '../http/reply.ts';

type Run = (
  deps: ImageDeps,
  ctx: { principal: ReturnType<typeof principalOf>; requestId: string; signal: AbortSignal; responseHeaders: Record<string, string> },
  body: unknown,
) => Promise<ImageResult>;

/** Which multipart file fields an endpoint takes: single images by name, or a list (multi-edit's `images`). */
interface Uploads {
  single?: string[];
  list?: string;
  maxFiles: number;
}

/** JSON, or (for the endpoints that take uploads) multipart/form-data; any other type is a 415 naming both. */
async function bodyOf(ctx: RequestCtx, uploads: Uploads | undefined): Promise<unknown> {
  const type = ctx.req.headers['content-type'];
  if (uploads && isMultipart(type)) return fromForm(await readMultipart(ctx, { maxBytes: ctx.svc.config.maxBodyBytes, maxFiles: uploads.maxFiles }), uploads);
  if (uploads && !isJsonContentType(type)) {
    throw new ApiError('INVALID_CONTENT_TYPE', `Invalid request content-type: expected application/json or multipart/form-data, got ${type ?? 'none'}`);
  }
  return jsonBody(ctx);
}

function answer(ctx: RequestCtx, result: ImageResult, name: string): Reply {
  const { model, router, balancesBefore: before } = result.meta;
  const h = ctx.headerCtx;
  Object.assign(ctx.extraHeaders, modelHeaders(h, model, router), balanceHeaders(h, before), imageHeaders(h, model, result.safety));
  if (result.seeds?.length) ctx.extraHeaders[`${h.wire.headerPrefix}image-seeds`] = result.seeds.join(',');
  setBalanceRemaining(ctx, before.usd - before.usdHeld - result.charged.usd);
  if (result.out.kind === 'json') return json(result.out.body);
  const { bytes, contentType } = result.out.image;
  const ext = contentType.split('/')[1] === 'jpeg' ? 'jpg' : contentType.split('/')[1];
  return raw(
    {
      'content-type': contentType,
      'content-length': String(bytes.length),
      'content-disposition': `inline; filename="${name}-${ctx.requestId}.${ext}"`,
      'cache-control': 'no-store',
    },
    bytes,
  );
}

function imageRoute(run: Run, name: string, uploads?: Uploads) {
  return async (ctx: RequestCtx): Promise<Reply> => {
    const principal = principalOf(ctx);
    const body = await bodyOf(ctx, uploads);
    const result = await withWalletCredit(ctx, () =>
      run(imageDepsOf(ctx.svc), { principal, requestId: ctx.requestId, signal: ctx.signal, responseHeaders: ctx.extraHeaders }, body),
    );
    return answer(ctx, result, name);
  };
}

export const imageGenerate = imageRoute(runGenerate, 'generate');
export const imagesGenerations = imageRoute(runOpenAIGenerations, 'generation');
export const imageEdit = imageRoute(runEdit, 'edit', { single: ['image'], maxFiles: 1 });
export const imageMultiEdit = imageRoute(runMultiEdit, 'multi-edit', { list: 'images', maxFiles: 16 });
export const imageUpscale = imageRoute(runUpscale, 'upscale', { single: ['image'], maxFiles: 1 });
export const imageBackgroundRemove = imageRoute(runBackgroundRemove, 'background-remove', { single: ['image'], maxFiles: 1 });
