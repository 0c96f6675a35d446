// Writing the extra catalogue file (lib/models/extra-catalogue.ts) for `npx lagoon model add`: entries for an
// OpenAI-compatible upstream (given, or discovered from its /models) or a local GGUF, upserted by id, the file
// checked before it is replaced (atomically), so the server never finds half a file.
import fs from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { normaliseBaseUrl } from './catalogue.ts';
import { parseExtraFile, readJsonFile } from './extra-catalogue.ts';

type Entry = Record<string, unknown> & { id: string; type: string; traits: string[] };

export interface EntryOptions {
  /** Our id; default: the upstream's name (or the GGUF's file name) with characters ids do not take replaced. */
  id?: string;
  name?: string;
  contextLength?: number;
  /** USD per million tokens (DIEM alike); default 0: a self-hosted model the operator does not bill for. */
  priceIn?: number;
  priceOut?: number;
  /** The `default` trait: this model answers requests that name no model (and the app picks it first). */
  makeDefault?: boolean;
}

export interface DiscoveredModel {
  /** The upstream's served name. */
  served: string;
  contextLength?: number;
  /** Embedding models answer /embeddings; their vector size. */
  dimensions?: number;
}

/** An id our catalogue accepts, from an upstream's name (`llama3:latest` → `llama3-latest`). */
export function idFrom(name: string): string {
  const id = name.replace(/[^A-Za-z0-9._\-/]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  if (!id) throw new Error(`"${name}" gives no usable model id: pass --id`);
  return id;
}

function base(o: EntryOptions, fallbackId: string, type: 'text' | 'embedding', contextLength: number | undefined): Entry {
  const priceIn = o.priceIn ?? 0;
  const priceOut = type === 'embedding' ? 0 : (o.priceOut ?? 0);
  const id = o.id ?? idFrom(fallbackId);
  return {
    id,
    name: o.name ?? id,
    type,
    tier: 'S',
    pricing: { input_usd: priceIn, output_usd: priceOut, input_diem: priceIn, output_diem: priceOut },
    context_length: o.contextLength ?? contextLength ?? 8192,
    traits: o.makeDefault ? ['default'] : [],
  };
}

export function upstreamEntry(baseUrl: string, m: DiscoveredModel, keyEnv: string | undefined, o: EntryOptions = {}): Entry {
  const type = m.dimensions ? 'embedding' : 'text';
  return {
    ...base(o, m.served, type, m.contextLength),
    ...(m.dimensions ? { embedding: { dimensions: m.dimensions } } : {}),
    engine: { kind: 'openai', baseUrl: normaliseBaseUrl(baseUrl), model: m.served, ...(keyEnv ? { apiKeyEnv: keyEnv } : {}) },
  };
}

export function ggufEntry(file: string, o: EntryOptions = {}): Entry {
  const stem = path
    .basename(file)
    .replace(/\.gguf$/i, '')
    .toLowerCase();
  return { ...base(o, stem, 'text', undefined), engine: { kind: 'llama', path: path.resolve(file) } };
}

async function getJson(url: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await request(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.body.text();
  try {
    return { status: res.statusCode, json: JSON.parse(text) };
  } catch {
    return { status: res.statusCode, json: undefined };
  }
}

const looksLikeEmbedding = (id: string) => /embed|bge-|\be5-|gte-|nomic/i.test(id);

/**
 * The models an OpenAI-compatible upstream lists at `{baseUrl}/models`, with their context length when it says
 * (vLLM's max_model_len, OpenRouter's context_length). A name that looks like an embedding model is asked for one
 * vector, which gives its size; one that does not answer is left out (with the reason in `skipped`).
 */
export async function discoverUpstream(baseUrl: string, apiKey: string | undefined): Promise<{ models: DiscoveredModel[]; skipped: string[] }> {
  const root = normaliseBaseUrl(baseUrl);
  const auth: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const listed = await getJson(`${root}/models`, auth);
  if (listed.status === 401 || listed.status === 403)
    throw new Error(`the upstream refused the credentials (${listed.status}): pass --key-env with the variable that holds its key`);
  if (listed.status !== 200 || !Array.isArray(listed.json?.data))
    throw new Error(`the upstream's ${root}/models answered ${listed.status} without an OpenAI model list`);
  const models: DiscoveredModel[] = [];
  const skipped: string[] = [];
  for (const m of listed.json.data as Record<string, unknown>[]) {
    if (typeof m?.id !== 'string') continue;
    const ctx = [m.max_model_len, m.context_length, m.context_window].find((v) => typeof v === 'number' && Number.isInteger(v) && v > 0) as number | undefined;
    if (!looksLikeEmbedding(m.id)) {
      models.push({ served: m.id, contextLength: ctx });
      continue;
    }
    const probe = await getJson(`${root}/embeddings`, auth, { model: m.id, input: 'lagoon dimension probe' }).catch(() => undefined);
    const vector = probe?.json?.data?.[0]?.embedding;
    if (probe?.status === 200 && Array.isArray(vector) && vector.length > 0) models.push({ served: m.id, contextLength: ctx, dimensions: vector.length });
    else skipped.push(`${m.id}: looks like an embedding model but /embeddings did not answer with a vector`);
  }
  return { models, skipped };
}

/** Upserts entries (by id) into the extra file, checks the result, and replaces the file atomically. */
export function addToExtraFile(file: string, entries: Entry[]): { added: string[]; replaced: string[] } {
  const existing = fs.existsSync(file) ? (readJsonFile(file) as Record<string, unknown>) : {};
  const models = [...((existing.models as Entry[] | undefined) ?? [])];
  const added: string[] = [];
  const replaced: string[] = [];
  for (const e of entries) {
    // A new default takes the trait from the file's other models of its type.
    if (e.traits.includes('default'))
      for (const [i, m] of models.entries())
        if (m.type === e.type && m.traits?.includes('default')) models[i] = { ...m, traits: m.traits.filter((t) => t !== 'default') };
    const at = models.findIndex((m) => m.id === e.id);
    if (at >= 0) {
      models[at] = e;
      replaced.push(e.id);
    } else {
      models.push(e);
      added.push(e.id);
    }
  }
  const next = { ...existing, models };
  parseExtraFile(next, file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`);
  fs.renameSync(tmp, file);
  return { added, replaced };
}
