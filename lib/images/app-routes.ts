// The image mode's routes (shapes: lib/images/wire.ts). The signed-in user acts through the principal of the
// account's server-held browser key, and every image is made by the API's own pipeline (lib/images): the
// same validation, per-model rate limit, hold of the worst case and bill per image as POST /api/v1/image/*. What it
// makes is stored per user (lib/conversations/images.ts): another user's image id is a 404 like a made-up one.
//
// Variants appear one by one: a generation runs as one metered call per variant (seed, seed+1, …). The first runs
// within the request, so a refusal (bad input, 402, 429) or a failure is a plain error that stores and bills nothing;
// the rest run in the background into the same chat message (image-turns.ts), which the page polls. One call per
// variant costs the same as one call for all (the price is per image) and lets each image show as soon as it exists,
// be stopped between images, and survive the browser leaving.
import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { ApiError, isApiError } from '../api/errors.ts';
import type { ImageAction, ImageParams, NewImage, StoredImage } from '../conversations/images.ts';
import { extensionOf, userImages } from '../conversations/images.ts';
import type { Principal } from '../auth/keys.ts';
import { type ImageResult, runBackgroundRemove, runEdit, runGenerate, runMultiEdit, runUpscale } from './pipeline.ts';
import { bytesOfDataUrl, EDIT_BODY_LIMIT, editBody, greyscaleMask, maskRefusal } from './app-edit.ts';
import { imageModel } from './plan.ts';
import { imageDepsOf } from './deps.ts';
import type { Catalogue } from '../models/catalogue.ts';
import { imageLimits } from '../models/image-models.ts';
import { principalForUser } from '../users/users.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent } from '../http/app-route.ts';
import type { AppImage, ImageModelsReport, ImagesPage, ImageTurnResponse } from './wire.ts';
import { isRemote } from '../catalogue/sources.ts';
import { contentDisposition, fileStem } from '../conversations/app-download.ts';
import { imageModelsOf, toAppImage } from './app-present.ts';
import { ImageRuns, openTurn, type PlacedTurn, placeTurn } from './app-turns.ts';
import { toAppMessage } from '../conversations/message.ts';
import { toAppConversation } from '../conversations/present.ts';

const BODY_LIMIT = 64 * 1024;
/** Variants take seed, seed+1, …: the highest seed leaves room for four within the API's bound. */
export const SEED_MAX = 999_999_995;

const id = z.string().min(1).max(200);
const generateBody = z.strictObject({
  conversationId: id,
  parentId: id.nullable(),
  model: id,
  prompt: z
    .string()
    .max(7500)
    .refine((s) => s.trim().length > 0, 'prompt is empty: describe the image'),
  negativePrompt: z.string().max(7500).optional(),
  style: z.string().min(1).max(100).optional(),
  aspectRatio: z.string().min(1).max(16).optional(),
  resolution: z.string().min(1).max(10).optional(),
  width: z.number().int().positive().max(8192).optional(),
  height: z.number().int().positive().max(8192).optional(),
  variants: z.number().int().min(1).max(4).default(1),
  seed: z.number().int().min(1).max(SEED_MAX).optional(),
});
type GenerateBody = z.output<typeof generateBody>;

const actionBody = z
  .strictObject({
    conversationId: id.optional(),
    parentId: id.nullable().optional(),
    scale: z.union([z.literal(2), z.literal(4)], { error: 'scale must be 2 or 4' }).optional(),
  })
  .refine((b) => (b.conversationId === undefined) === (b.parentId === undefined), {
    message: 'give conversationId and parentId together (or neither, for the gallery only)',
    path: ['parentId'],
  });

// The API's field names in a refusal, as the app's body names them.
const APP_PARAMS: Record<string, string> = {
  style_preset: 'style',
  negative_prompt: 'negativePrompt',
  aspect_ratio: 'aspectRatio',
  image: 'id',
};
function asAppError(e: unknown): unknown {
  if (!isApiError(e) || typeof e.extra?.param !== 'string' || !Object.hasOwn(APP_PARAMS, e.extra.param)) return e;
  return new ApiError(e.code, e.message, { ...e.extra, param: APP_PARAMS[e.extra.param] }, e.headers);
}

// Request ids in the API layer's shape (24 hex characters, time first): each is one call's usage row.

function intParam(url: URL, name: string): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d{1,4}$/.test(raw)) throw new ApiError('INVALID_REQUEST', `${name} must be a positive integer`, { param: name });
  return Number(raw);
}

/** The API body of one variant of a generation. */
function apiGenerateBody(
  b: Pick<GenerateBody, 'prompt' | 'negativePrompt' | 'style' | 'aspectRatio' | 'resolution' | 'width' | 'height'>,
  model: string,
  seed: number,
) {
  const body: Record<string, unknown> = { model, prompt: b.prompt, variants: 1, seed, format: 'webp', return_binary: true };
  if (b.negativePrompt) body.negative_prompt = b.negativePrompt;
  if (b.style) body.style_preset = b.style;
  if (b.aspectRatio !== undefined) body.aspect_ratio = b.aspectRatio;
  if (b.resolution !== undefined) body.resolution = b.resolution;
  if (b.width !== undefined) body.width = b.width;
  if (b.height !== undefined) body.height = b.height;
  return body;
}

type Run = typeof runGenerate;

export function imageRoutes(deps: AppDeps) {
  const { svc } = deps;
  const remote = isRemote(deps);
  const runs = new ImageRuns(svc.store);
  // With the embedded store this process is the only writer, so a 'streaming' row older than it is certainly dead.
  const aliveSince = svc.store.kind === 'sqlite' ? Date.now() : 0;
  const cat = () => svc.catalogue;

  const unavailable = () =>
    remote
      ? "Images are not available in this app: its inference comes from an external API, and images are made by this server's own engines."
      : cat().models.some((m) => m.type === 'image')
        ? null
        : 'This server offers no image model: its operator adds one to the model catalogue.';
  const refuseUnavailable = () => {
    const why = unavailable();
    if (why) throw new ApiError('NOT_FOUND', why);
  };

  /** One metered call of the pipeline as the user's account; its image, stored. */
  async function make(
    run: Run,
    { principal, requestId, signal }: { principal: Principal; requestId: string; signal: AbortSignal },
    body: Record<string, unknown>,
    store: NewImageStore,
    record: Omit<NewImage, 'data' | 'width' | 'height' | 'contentType' | 'requestId' | 'costUsd' | 'costDiem' | 'modelId'>,
  ): Promise<StoredImage> {
    let r: ImageResult;
    try {
      r = await run(imageDepsOf(svc), { principal, requestId, signal, responseHeaders: {} }, body);
    } catch (e) {
      throw asAppError(e);
    }
    if (r.out.kind !== 'binary') throw new Error('the image pipeline answered JSON where one image was asked for');
    const { bytes, contentType, width, height } = r.out.image;
    return store.add({
      ...record,
      data: bytes,
      contentType,
      width,
      height,
      requestId,
      modelId: r.meta.model.id,
      costUsd: r.charged.usd,
      costDiem: r.charged.diem,
    });
  }
  type NewImageStore = Pick<ReturnType<typeof userImages>, 'add'>;

  const present = (i: StoredImage): AppImage => toAppImage(i, cat());
  const turnBody = (t: PlacedTurn): ImageTurnResponse => ({
    images: t.images.map(present),
    conversation: toAppConversation(t.conversation),
    user: toAppMessage(t.user),
    assistant: toAppMessage(t.assistant),
  });

  /** An action on one of the user's images (vary, upscale, background removal): one image, into the chat or the gallery. */
  function action(kind: Exclude<ImageAction, 'generate'>) {
    return appRoute(deps, { auth: 'session+csrf', body: actionBody, bodyLimit: BODY_LIMIT }, async ({ req, params, requestId, session: { user }, body: b }) => {
      refuseUnavailable();
      const store = userImages(svc.store, user.id);
      const source = await store.file(params.id);
      const place = b.conversationId !== undefined ? await openTurn(svc.store, user.id, b.conversationId, b.parentId ?? null, aliveSince) : undefined;
      const caller = { principal: await principalForUser(svc.store, user), requestId, signal: req.signal };
      const base = { conversationId: null, messageId: null, sourceId: source.id, prompt: source.prompt };
      let made: StoredImage;
      let request: string;
      if (kind === 'vary') {
        if (source.action !== 'generate' && source.action !== 'vary') {
          throw new ApiError('INVALID_REQUEST', 'Only a generated image can be varied: vary the image it was made from', { param: 'id' });
        }
        const p = source.params;
        const seed = randomInt(1, SEED_MAX + 1);
        const body = apiGenerateBody({ ...p, prompt: source.prompt }, source.modelId, seed);
        const params: ImageParams = { ...pick(p), variant: 0, variants: 1 };
        made = await make(runGenerate, caller, body, store, { ...base, action: 'vary', params, seed });
        request = `Vary: ${source.prompt}`;
      } else if (kind === 'upscale') {
        const scale = b.scale ?? 2;
        made = await make(runUpscale, caller, { image: source.data, scale }, store, {
          ...base,
          action: 'upscale',
          params: { scale },
          seed: null,
        });
        request = `Upscale ${scale}×`;
      } else {
        made = await make(runBackgroundRemove, caller, { image: source.data }, store, {
          ...base,
          action: 'background-remove',
          params: {},
          seed: null,
        });
        request = 'Remove the background';
      }
      if (!place) return json({ images: [present(made)] } satisfies ImageTurnResponse, 201);
      const turn = await placeTurn(place, store, { request, caption: captionOf(made, cat()), modelId: made.modelId, made: [made], streaming: false });
      return json(turnBody(turn), 201);
    });
  }

  return {
    imageModels: appRoute(deps, 'session', async () => {
      const why = unavailable();
      const body: ImageModelsReport = { models: why ? [] : imageModelsOf(cat()), styles: why ? [] : [...cat().file.image_styles], unavailable: why };
      return json(body);
    }),

    listImages: appRoute(deps, 'session', async ({ req, session: { user } }) => {
      const url = new URL(req.url);
      const q = (name: string) => url.searchParams.get(name) || undefined;
      const page = await userImages(svc.store, user.id).list({
        limit: intParam(url, 'limit'),
        cursor: q('cursor') ?? null,
        conversationId: q('conversationId'),
        messageId: q('messageId'),
      });
      const body: ImagesPage = { images: page.items.map(present), nextCursor: page.nextCursor };
      return json(body);
    }),

    generateImages: appRoute(
      deps,
      { auth: 'session+csrf', body: generateBody, bodyLimit: BODY_LIMIT },
      async ({ req, requestId, session: { user }, body: b }) => {
        refuseUnavailable();
        let model;
        try {
          model = imageModel(cat(), b.model, 'image');
        } catch (e) {
          throw asAppError(e);
        }
        const { maxVariants } = imageLimits(model);
        if (b.variants > maxVariants) {
          throw new ApiError('INVALID_REQUEST', `variants must be at most ${maxVariants} for model ${model.id} (got ${b.variants})`, { param: 'variants' });
        }
        const place = await openTurn(svc.store, user.id, b.conversationId, b.parentId, aliveSince);
        const principal = await principalForUser(svc.store, user);
        const store = userImages(svc.store, user.id);
        const seed = b.seed ?? randomInt(1, SEED_MAX + 1);
        const params = (variant: number): ImageParams => ({ ...pick(b), variant, variants: b.variants });
        // The first image's usage row carries the request's own id (its CF-RAY); the variants made after the answer, a suffix.
        const variant = (i: number, signal: AbortSignal, messageId: string | null) =>
          make(runGenerate, { principal, requestId: i === 0 ? requestId : `${requestId}-${i}`, signal }, apiGenerateBody(b, model.id, seed + i), store, {
            conversationId: messageId ? place.conversation.id : null,
            messageId,
            sourceId: null,
            action: 'generate',
            prompt: b.prompt,
            params: params(i),
            seed: seed + i,
          });
        const first = await variant(0, req.signal, null);
        const more = b.variants > 1;
        const turn = await placeTurn(place, store, {
          request: b.prompt,
          caption: `Generated with ${model.name}.`,
          modelId: model.id,
          made: [first],
          streaming: more,
        });
        if (more) runs.start(user.id, turn.assistant.id, 1, b.variants, (i, signal) => variant(i, signal, turn.assistant.id));
        return json(turnBody(turn), 201);
      },
    ),

    getImage: appRoute(deps, 'session', async ({ params, session: { user } }) => {
      return json({ image: present(await userImages(svc.store, user.id).get(params.id)) });
    }),

    imageFile: appRoute(deps, 'session', async ({ req, params, session: { user } }) => {
      const store = userImages(svc.store, user.id);
      // An image never changes under its id: the browser may keep it, asking again (with its ETag) each time.
      const etag = `"${params.id}"`;
      const cache = { etag, 'cache-control': 'private, no-cache', 'x-content-type-options': 'nosniff' };
      if (req.headers.get('if-none-match') === etag) {
        await store.get(params.id);
        return new Response(null, { status: 304, headers: cache });
      }
      const f = await store.file(params.id);
      const headers: Record<string, string> = { ...cache, 'content-type': f.contentType, 'content-length': String(f.data.length) };
      if (new URL(req.url).searchParams.get('download') === '1') {
        const suffix =
          f.seed !== null
            ? ` ${f.seed}`
            : f.action === 'upscale'
              ? ' upscaled'
              : f.action === 'background-remove'
                ? ' cut out'
                : f.action === 'edit'
                  ? ' edited'
                  : '';
        headers['content-disposition'] = contentDisposition(fileStem(f.prompt, 'image'), extensionOf(f.contentType), { suffix, fallback: 'image' });
      }
      return new Response(new Uint8Array(f.data), { status: 200, headers });
    }),

    varyImage: action('vary'),
    upscaleImage: action('upscale'),
    removeImageBackground: action('background-remove'),

    // "Edit this image" (lib/images/app-edit.ts): a gallery image or a chat's picture, into the gallery.
    editImage: appRoute(deps, { auth: 'session+csrf', body: editBody, bodyLimit: EDIT_BODY_LIMIT }, async ({ req, requestId, session: { user }, body: b }) => {
      refuseUnavailable();
      let model;
      try {
        model = imageModel(cat(), b.model, 'inpaint');
      } catch (e) {
        throw asAppError(e);
      }
      if (b.mask) {
        const why = maskRefusal(model);
        if (why) throw new ApiError('INVALID_REQUEST', why, { param: 'mask' });
      }
      const store = userImages(svc.store, user.id);
      const source = b.sourceId !== undefined ? await store.file(b.sourceId) : undefined;
      const image = source ? source.data : bytesOfDataUrl(b.image ?? '');
      const caller = { principal: await principalForUser(svc.store, user), requestId, signal: req.signal };
      const record = { conversationId: null, messageId: null, sourceId: source?.id ?? null, action: 'edit' as const, prompt: b.prompt, params: {}, seed: null };
      const made = b.mask
        ? await make(runMultiEdit, caller, { images: [image, await greyscaleMask(b.mask)], prompt: b.prompt, model: model.id }, store, record)
        : await make(runEdit, caller, { image, prompt: b.prompt, model: model.id }, store, record);
      return json({ images: [present(made)] } satisfies ImageTurnResponse, 201);
    }),

    deleteImage: appRoute(deps, 'session+csrf', async ({ params, session: { user } }) => {
      await userImages(svc.store, user.id).remove(params.id);
      return noContent();
    }),

    /** Stops the generations running here, keeping what each made; for shutdown. */
    close: () => runs.close(),
  };
}

/** The settings of a generation worth keeping with its images (to vary them later). */
function pick(b: ImageParams): ImageParams {
  const out: ImageParams = {};
  if (b.negativePrompt) out.negativePrompt = b.negativePrompt;
  if (b.style) out.style = b.style;
  if (b.aspectRatio !== undefined) out.aspectRatio = b.aspectRatio;
  if (b.resolution !== undefined) out.resolution = b.resolution;
  if (b.width !== undefined) out.width = b.width;
  if (b.height !== undefined) out.height = b.height;
  return out;
}

function captionOf(i: StoredImage, c: Catalogue): string {
  const name = c.byId.get(i.modelId)?.name ?? i.modelId;
  if (i.action === 'vary') return `A variation (seed ${i.seed}) with ${name}.`;
  if (i.action === 'upscale') return `Upscaled to ${i.width}×${i.height} with ${name}.`;
  if (i.action === 'background-remove') return `Background removed with ${name}.`;
  if (i.action === 'edit') return `Edited with ${name}.`;
  return `Generated with ${name}.`;
}
