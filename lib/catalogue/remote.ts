// Remote mode's model and character lists: GET {INFERENCE_BASE_URL}/models?type=text and /characters with the
// server-held INFERENCE_API_KEY (never sent anywhere else, never echoed). Lists are cached for a minute; when the
// remote API fails, the last good list is served, and with none a 503 says what is wrong without upstream details.
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import type { RemoteConfig } from '../config.ts';
import type { AppCharacter, AppModel } from '../wire.ts';
import { type CatalogueSource, checkCharacterQuery, safePhotoUrl } from './source.ts';
import { log } from '../log.ts';

const TTL_MS = 60_000;
const TIMEOUT_MS = 10_000;

const num = z.number().finite().catch(0);
const bool = z.boolean().catch(false);
const remoteModel = z.looseObject({
  id: z.string().min(1).max(200),
  type: z.string().optional(),
  context_length: z.number().int().positive().optional(),
  model_spec: z
    .looseObject({
      name: z.string().optional(),
      description: z.string().nullable().optional(),
      availableContextTokens: z.number().int().positive().optional(),
      traits: z.array(z.string()).catch([]).optional(),
      offline: bool.optional(),
      offlineReason: z.string().max(500).catch('').optional(),
      capabilities: z
        .looseObject({
          supportsVision: bool.optional(),
          supportsReasoning: bool.optional(),
          supportsWebSearch: bool.optional(),
          supportsFunctionCalling: bool.optional(),
        })
        .optional(),
      pricing: z.looseObject({ input: z.looseObject({ usd: num }).optional(), output: z.looseObject({ usd: num }).optional() }).optional(),
    })
    .optional(),
});
const remoteCharacter = z.looseObject({
  slug: z.string().min(1).max(200),
  name: z.string().min(1).max(500),
  description: z.string().nullable().optional(),
  photoUrl: z.string().nullable().optional(),
  tags: z.array(z.string()).catch([]).optional(),
  modelId: z.string().nullable().optional(),
});
const list = z.looseObject({ data: z.array(z.unknown()) });

function toModel(r: z.infer<typeof remoteModel>): AppModel {
  const spec = r.model_spec ?? {};
  const caps = spec.capabilities ?? {};
  const m: AppModel = {
    id: r.id,
    name: spec.name || r.id,
    pricing: { inputUsd: spec.pricing?.input?.usd ?? 0, outputUsd: spec.pricing?.output?.usd ?? 0 },
    contextLength: r.context_length ?? spec.availableContextTokens ?? 0,
    capabilities: {
      vision: caps.supportsVision ?? false,
      reasoning: caps.supportsReasoning ?? false,
      webSearch: caps.supportsWebSearch ?? false,
      functionCalling: caps.supportsFunctionCalling ?? false,
      // Private chats seal to this server's own E2EE worker, which serves this server's catalogue only.
      e2ee: false,
    },
    traits: spec.traits ?? [],
    isDefault: false,
  };
  if (spec.description) m.description = spec.description;
  if (spec.offline) m.unavailable = spec.offlineReason || 'the model is offline';
  return m;
}

const toCharacter = (r: z.infer<typeof remoteCharacter>, base: string): AppCharacter => ({
  slug: r.slug,
  name: r.name,
  description: r.description ?? '',
  // A relative photo path is the remote site's, not ours.
  photoUrl: safePhotoUrl(r.photoUrl, base),
  tags: r.tags ?? [],
  modelId: r.modelId ?? null,
});

/** Parses each entry on its own: one odd record is skipped, not the whole list. */
function parseEach<T extends z.ZodType>(schema: T, items: unknown[]): z.infer<T>[] {
  const out: z.infer<T>[] = [];
  for (const item of items) {
    const r = schema.safeParse(item);
    if (r.success) out.push(r.data);
  }
  return out;
}

interface Cached<T> {
  value: T;
  at: number;
}

export function remoteCatalogue(remote: Pick<RemoteConfig, 'baseUrl' | 'apiKey'>, fetchImpl: typeof fetch = fetch): CatalogueSource {
  const base = remote.baseUrl.replace(/\/+$/, '');
  const key = remote.apiKey;

  async function getList(path: string): Promise<unknown[]> {
    let res: Response;
    try {
      res = await fetchImpl(`${base}${path}`, {
        headers: { accept: 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (e) {
      log.error({ reason: (e as Error).message }, `remote catalogue: GET ${path} failed`);
      throw unavailable();
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      log.error(`remote catalogue: GET ${path} answered ${res.status}`);
      throw unavailable();
    }
    const parsed = list.safeParse(await res.json().catch(() => undefined));
    if (!parsed.success) {
      log.error(`remote catalogue: GET ${path} did not answer a { data: [...] } list`);
      throw unavailable();
    }
    return parsed.data.data;
  }

  const unavailable = () =>
    new ApiError('MODEL_AT_CAPACITY', 'The inference service is unavailable right now. Please try again shortly.', undefined, { 'retry-after': '10' });

  /** A cached loader: fresh for TTL_MS; on failure, the last good value if any. */
  function cached<T>(load: () => Promise<T>): () => Promise<T> {
    let last: Cached<T> | undefined;
    let inflight: Promise<T> | undefined;
    return async () => {
      if (last && Date.now() - last.at < TTL_MS) return last.value;
      inflight ??= load()
        .then((value) => ((last = { value, at: Date.now() }), value))
        .finally(() => (inflight = undefined));
      try {
        return await inflight;
      } catch (e) {
        if (last) return last.value;
        throw e;
      }
    };
  }

  const models = cached(async () => {
    const all = parseEach(remoteModel, await getList('/models?type=text')).filter((m) => m.type === undefined || m.type === 'text');
    const out = all.map(toModel);
    const def = out.find((m) => m.traits.includes('default')) ?? out[0];
    if (def) def.isDefault = true;
    return out;
  });
  const characters = cached(async () => parseEach(remoteCharacter, await getList('/characters?limit=100')).map((c) => toCharacter(c, base)));

  return {
    async models() {
      return structuredClone(await models());
    },
    async characters(q) {
      const needle = checkCharacterQuery(q).toLowerCase();
      const all = await characters();
      const hit = (c: AppCharacter) =>
        !needle ||
        c.name.toLowerCase().includes(needle) ||
        c.description.toLowerCase().includes(needle) ||
        c.tags.some((t) => t.toLowerCase().includes(needle));
      return structuredClone(all.filter(hit));
    },
    async model(name) {
      const m = (await models()).find((x) => x.id === name);
      if (!m) throw new ApiError('MODEL_NOT_FOUND', `Specified model not found: "${name}"`);
      return structuredClone(m);
    },
    async character(slug) {
      const c = (await characters()).find((x) => x.slug === slug);
      if (!c) throw new ApiError('CHARACTER_NOT_FOUND', `Character "${slug}" not found`);
      return structuredClone(c);
    },
  };
}
