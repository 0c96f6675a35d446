// The operator's models page (the operator only): every catalogue model with its engine and health, adding an
// OpenAI-compatible upstream (its key named by an environment variable, or stored on the server and never sent
// back), testing an engine, disabling and enabling a model, and editing token prices — all applied at once through
// lib/models/operator-catalogue.ts (no restart), each written to the operator audit log.
import { z } from 'zod';
import { recordAudit } from '../accounts/operator.ts';
import { ApiError } from '../api/errors.ts';
import { type EngineStatus, probeEngine, safeUrl } from '../engines/health.ts';
import { type OperatorRow, storedKeyName, type TokenPrices } from '../models/operator-catalogue.ts';
import { type EngineSpec, type ModelEntry, modelEntrySchema } from '../models/schema.ts';
import type { User } from '../users/users.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent } from '../http/app-route.ts';
import type { EngineTestResult, OperatorDefaultModel, OperatorModel, OperatorModelsPage } from '../wire.ts';
import { refuseKeyVar } from './key-vars.ts';
import { catalogueSource } from '../catalogue/sources.ts';
import { readDefaultModel, writeDefaultModel } from '../catalogue/default-model.ts';

const BODY_LIMIT = 64 * 1024;
/** Prices per million tokens: a typo of a few zeros is refused rather than charged. */
const PRICE_MAX = 10_000;

// zod runs refinements after a failed .url() too, so they parse defensively.
const urlOrNull = (u: string): URL | null => (URL.canParse(u) ? new URL(u) : null);
const modelId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]*$/, 'letters, digits, . _ - /')
  .max(200);
const price = z.number().min(0).max(PRICE_MAX);
const prices = z.strictObject({ inputUsd: price, outputUsd: price, inputDiem: price.optional(), outputDiem: price.optional() });
const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name (letters, digits, _)')
  .max(200);
const upstreamUrl = z
  .string()
  .trim()
  .max(2000)
  .url()
  .refine((u) => /^https?:$/.test(urlOrNull(u)?.protocol ?? ''), 'must be http or https')
  .refine((u) => !urlOrNull(u)?.username && !urlOrNull(u)?.password, 'must not carry credentials: give the key as apiKey or apiKeyEnv');
const secret = z.string().trim().min(1).max(4000);

const upstream = {
  baseUrl: upstreamUrl,
  upstreamModel: z.string().trim().min(1).max(300).optional(),
  apiKeyEnv: envName.optional(),
  apiKey: secret.optional(),
};
const oneKey = (b: { apiKeyEnv?: string; apiKey?: string }) => !(b.apiKeyEnv && b.apiKey);
const KEY_MESSAGE = { message: 'Give apiKeyEnv or apiKey, not both' };

const addBody = z
  .strictObject({
    id: modelId,
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().trim().max(2000).optional(),
    type: z.enum(['text', 'embedding']).default('text'),
    ...upstream,
    contextLength: z.number().int().min(256).max(10_000_000).default(32_768),
    pricing: prices,
    capabilities: z.strictObject({ vision: z.boolean().optional(), reasoning: z.boolean().optional(), functionCalling: z.boolean().optional() }).optional(),
    dimensions: z.number().int().min(1).max(65_536).optional(),
  })
  .refine(oneKey, KEY_MESSAGE)
  .refine((b) => b.type !== 'embedding' || b.dimensions !== undefined, { message: 'An embedding model needs dimensions', path: ['dimensions'] });
const testBody = z.strictObject(upstream).refine(oneKey, KEY_MESSAGE);
const patchBody = z
  .strictObject({ disabled: z.boolean().optional(), pricing: prices.nullable().optional() })
  .refine((b) => b.disabled !== undefined || b.pricing !== undefined, { message: 'Give disabled or pricing' });

const defaultBody = z.strictObject({ modelId: z.string().min(1).max(300).nullable() });

const tokenPrices = (p: z.infer<typeof prices>): TokenPrices => ({
  input_usd: p.inputUsd,
  output_usd: p.outputUsd,
  // A DIEM price left out is the USD price, as in the catalogue file.
  input_diem: p.inputDiem ?? p.inputUsd,
  output_diem: p.outputDiem ?? p.outputUsd,
});

/** `http://host:8000` means its OpenAI API at `/v1`; any other path is taken as written. */
export function upstreamBase(url: string): string {
  const u = new URL(url);
  const path = u.pathname.replace(/\/+$/, '');
  return `${u.origin}${path || '/v1'}`;
}

/** Media models are priced in their own units; only token prices are edited here. */
const tokenPriced = (m: ModelEntry) => m.type === 'text' || m.type === 'embedding';

function keyOf(spec: EngineSpec, stored: boolean): OperatorModel['engine']['key'] {
  if (stored) return { source: 'stored' };
  const name = 'apiKeyEnv' in spec ? spec.apiKeyEnv : undefined;
  return name ? { source: 'env', name } : { source: 'none' };
}

function engineOf(m: ModelEntry, stored: boolean): OperatorModel['engine'] {
  const spec = m.engine;
  const urls = 'baseUrl' in spec ? (Array.isArray(spec.baseUrl) ? spec.baseUrl : [spec.baseUrl]) : null;
  return {
    kind: spec.kind,
    baseUrls: urls && urls.map(safeUrl),
    upstreamModel: spec.kind === 'openai' && spec.model && spec.model !== m.id ? spec.model : null,
    key: keyOf(spec, stored),
  };
}

export function operatorModelRoutes(deps: AppDeps) {
  const { svc } = deps;
  const { store, config } = svc;
  const changes = svc.operatorCatalogue;
  // The last test of each model from this page: its status where the engine checks are off or have not run yet.
  const tested = new Map<string, EngineTestResult>();
  const vars = (name: string) => changes.storedKey(name) ?? config.catalogueVar(name);
  // The service's engine checks (lib/engines/health.ts), when they run (LAGOON_ENGINE_CHECK_MS > 0).
  const healthOf = (id: string): EngineStatus | undefined => svc.engineHealth.status(id);

  const audit = (actor: User, action: 'model_add' | 'model_update' | 'model_remove', details: Record<string, unknown>) =>
    recordAudit(store, { actorUserId: actor.id, actor: actor.email, action, accountId: '', details });

  function toWire(m: ModelEntry, row: OperatorRow | undefined, disabled: boolean): OperatorModel {
    const health = healthOf(m.id);
    const status = health && health.checkedAt > 0 ? { ok: health.ok, reason: health.reason ?? null } : (tested.get(m.id) ?? null);
    const p = m.pricing;
    return {
      id: m.id,
      name: m.name,
      type: m.type,
      description: m.description ?? null,
      origin: row?.entry ? 'operator' : 'file',
      disabled,
      pricing: tokenPriced(m) ? { inputUsd: p.input_usd, outputUsd: p.output_usd, inputDiem: p.input_diem, outputDiem: p.output_diem } : null,
      pricesOverridden: !!row?.pricing,
      contextLength: m.context_length,
      engine: engineOf(m, !!row?.hasStoredKey),
      status,
    };
  }

  /** Every model, served or disabled: the file's first (with their overrides), then the operator's additions. */
  function list(): OperatorModel[] {
    const rows = new Map(changes.changes().map((r) => [r.modelId, r]));
    const out: OperatorModel[] = [];
    for (const f of changes.fileModels()) {
      const served = svc.catalogue.byId.get(f.id);
      out.push(toWire(served ?? f, rows.get(f.id), !served));
    }
    for (const r of rows.values()) {
      if (!r.entry || changes.fileModels().some((f) => f.id === r.modelId)) continue;
      out.push(toWire(svc.catalogue.byId.get(r.modelId) ?? r.entry, r, r.disabled));
    }
    return out;
  }

  function one(id: string): OperatorModel {
    const m = list().find((x) => x.id === id);
    if (!m) throw new ApiError('NOT_FOUND', `Model "${id}" not found`);
    return m;
  }

  /** The operator's choice and the model new chats start on now (the choice, or the built-in default without one). */
  async function defaults(): Promise<OperatorDefaultModel> {
    const [chosen, models] = await Promise.all([readDefaultModel(store), catalogueSource(deps).models()]);
    return { defaultModelId: chosen, appDefaultModelId: models.find((m) => m.isDefault)?.id ?? models[0]?.id ?? null };
  }

  async function test(id: string, spec: EngineSpec, lookup: (name: string) => string | undefined): Promise<EngineTestResult> {
    const r = await probeEngine(spec, { vars: lookup, modelId: id });
    const out: EngineTestResult = r.ok ? { ok: true, reason: r.note ?? null } : { ok: false, reason: r.reason };
    return out;
  }

  return {
    operatorModels: appRoute(deps, 'operator', async () => {
      const body: OperatorModelsPage = { models: list(), ...(await defaults()) };
      return json(body);
    }),

    // The model new chats start on (lib/catalogue/default-model.ts); null goes back to the built-in choice.
    operatorSetDefaultModel: appRoute(deps, { auth: 'operator+csrf', body: defaultBody }, async ({ session: { user }, body: b }) => {
      let id: string | null = null;
      if (b.modelId !== null) {
        const m = await catalogueSource(deps)
          .model(b.modelId)
          .catch(() => null);
        if (!m || m.id !== b.modelId)
          throw new ApiError('INVALID_REQUEST', `"${b.modelId}" is not a chat model this server serves: enable or add it first`, { param: 'modelId' });
        id = m.id;
      }
      await writeDefaultModel(store, id);
      await audit(user, 'model_update', { defaultModel: id });
      return json(await defaults());
    }),

    operatorAddModel: appRoute(deps, { auth: 'operator+csrf', body: addBody, bodyLimit: BODY_LIMIT }, async ({ session: { user }, body: b }) => {
      if (list().some((m) => m.id.toLowerCase() === b.id.toLowerCase()))
        throw new ApiError('INVALID_REQUEST', `A model called "${b.id}" already exists`, { param: 'id' });
      refuseKeyVar(b.apiKeyEnv, svc.catalogue);
      if (b.apiKeyEnv && config.catalogueVar(b.apiKeyEnv) === undefined)
        throw new ApiError(
          'INVALID_REQUEST',
          `The environment variable ${b.apiKeyEnv} is not set on this server: set it and restart, or store the key instead`,
          {
            param: 'apiKeyEnv',
          },
        );
      if (b.apiKey && !changes.canStoreKeys())
        throw new ApiError(
          'INVALID_REQUEST',
          'This server cannot store upstream keys: set LAGOON_SECRETS_KEY (the same on every instance) and restart, or name an environment variable instead',
          { param: 'apiKey' },
        );
      const caps = b.capabilities ?? {};
      // Checked by the catalogue's own schema, so an added model is exactly what the file could have declared.
      const parsed = modelEntrySchema.safeParse({
        id: b.id,
        name: b.name ?? b.id,
        ...(b.description ? { description: b.description } : {}),
        type: b.type,
        tier: 'M',
        pricing: tokenPrices(b.pricing),
        context_length: b.contextLength,
        capabilities: { vision: caps.vision ?? false, reasoning: caps.reasoning ?? false, function_calling: caps.functionCalling ?? false },
        ...(b.type === 'embedding' ? { embedding: { dimensions: b.dimensions } } : {}),
        engine: {
          kind: 'openai',
          baseUrl: upstreamBase(b.baseUrl),
          ...(b.upstreamModel && b.upstreamModel !== b.id ? { model: b.upstreamModel } : {}),
          ...(b.apiKey ? { apiKeyEnv: storedKeyName(b.id) } : b.apiKeyEnv ? { apiKeyEnv: b.apiKeyEnv } : {}),
        },
      });
      if (!parsed.success) throw new ApiError('INVALID_REQUEST', parsed.error.issues[0]?.message ?? 'Invalid model');
      await changes.add(parsed.data, b.apiKey ?? null);
      await audit(user, 'model_add', { model: b.id, baseUrl: safeUrl(upstreamBase(b.baseUrl)), key: b.apiKey ? 'stored' : (b.apiKeyEnv ?? 'none') });
      return json({ model: one(b.id) }, 201);
    }),

    operatorUpdateModel: appRoute(deps, { auth: 'operator+csrf', body: patchBody, bodyLimit: BODY_LIMIT }, async ({ params, session: { user }, body: b }) => {
      const current = one(params.id);
      if (b.pricing !== undefined && !current.pricing)
        throw new ApiError('INVALID_REQUEST', `${current.name} is priced in its own units (see the catalogue file); only token prices are edited here`, {
          param: 'pricing',
        });
      await changes.update(current.id, { disabled: b.disabled, pricing: b.pricing === undefined ? undefined : b.pricing && tokenPrices(b.pricing) });
      await audit(user, 'model_update', {
        model: current.id,
        ...(b.disabled !== undefined ? { disabled: b.disabled } : {}),
        ...(b.pricing !== undefined ? { pricing: b.pricing } : {}),
      });
      return json({ model: one(current.id) });
    }),

    operatorRemoveModel: appRoute(deps, 'operator+csrf', async ({ params, session: { user } }) => {
      const current = one(params.id);
      if (!(await changes.remove(current.id)))
        throw new ApiError('INVALID_REQUEST', `${current.name} is the catalogue file's, unchanged: disable it instead`, { param: 'id' });
      tested.delete(current.id);
      await audit(user, 'model_remove', { model: current.id, origin: current.origin });
      return noContent();
    }),

    operatorTestModel: appRoute(deps, 'operator+csrf', async ({ params }) => {
      const current = one(params.id);
      const entry =
        svc.catalogue.byId.get(current.id) ??
        changes.changes().find((r) => r.modelId === current.id)?.entry ??
        changes.fileModels().find((m) => m.id === current.id);
      if (!entry) throw new ApiError('NOT_FOUND', `Model "${params.id}" not found`);
      const result = await test(entry.id, entry.engine, vars);
      tested.set(entry.id, result);
      return json(result);
    }),

    // Before adding: the same check on what the form holds (a typed key is used for this check only, not kept).
    operatorTestEngine: appRoute(deps, { auth: 'operator+csrf', body: testBody, bodyLimit: BODY_LIMIT }, async ({ body: b }) => {
      refuseKeyVar(b.apiKeyEnv, svc.catalogue);
      const typed = 'lagoon-operator-key:(test)';
      const spec: EngineSpec = {
        kind: 'openai',
        baseUrl: upstreamBase(b.baseUrl),
        ...(b.upstreamModel ? { model: b.upstreamModel } : {}),
        ...(b.apiKey ? { apiKeyEnv: typed } : b.apiKeyEnv ? { apiKeyEnv: b.apiKeyEnv } : {}),
      };
      const result = await test(b.upstreamModel ?? '', spec, (name) => (name === typed ? b.apiKey : config.catalogueVar(name)));
      return json(result);
    }),
  };
}
