// One cheap check of one engine: is what the catalogue points at there and answering? An OpenAI-compatible upstream's
// `GET {baseUrl}/models`, a GGUF's magic bytes, a media upstream's cheapest read-only endpoint. The reason a check
// gives is shown to API clients and on /readyz, so it names the problem but never a URL, a path or a key; `where`
// (for the log and the operator) names the place checked, without credentials or query string.
import fs from 'node:fs/promises';
import { errors as undiciErrors, request } from 'undici';
import type { CatalogueVars } from '../models/catalogue.ts';
import type { EngineSpec } from '../models/schema.ts';

// `routine`: a note every fresh install sees (the demo model not written yet), logged at info rather than warn.
export type ProbeResult = { ok: true; note?: string; routine?: true; where?: string } | { ok: false; reason: string; where?: string };

export interface ProbeOptions {
  /** Looks up the variable an upstream's `apiKeyEnv` names (Config.catalogueVar). */
  vars?: CatalogueVars;
  /** The longest one check waits for an answer (default 5 s). */
  timeoutMs?: number;
  /** The catalogue id, for an OpenAI-compatible upstream whose `model` is left out (its served name). */
  modelId?: string;
  /** Every served name expected on this upstream (models sharing it share one check); default: the spec's own. */
  served?: string[];
}

export const DEFAULT_PROBE_TIMEOUT_MS = 5_000;

/** A URL as it may be logged: origin and path, never user:password, query or fragment. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/$/, '')}`;
  } catch {
    return '(an invalid URL)';
  }
}

const GGUF_MAGIC = Buffer.from('GGUF', 'latin1');

/** A GGUF file: present, readable, starting with the magic and a known version (1-3). */
export async function probeGguf(file: string, demo: boolean): Promise<ProbeResult> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // The demo model writes its own GGUF on first use (lib/engines/text/llama/demo-model.ts).
    if (code === 'ENOENT' && demo) return { ok: true, note: 'the demo GGUF is written on first use', routine: true, where: file };
    if (code === 'ENOENT') return { ok: false, reason: 'its GGUF file does not exist', where: file };
    if (code === 'EACCES') return { ok: false, reason: 'its GGUF file cannot be read (permission denied)', where: file };
    return { ok: false, reason: `its GGUF file cannot be opened (${code ?? 'error'})`, where: file };
  }
  try {
    const head = Buffer.alloc(8);
    const { bytesRead } = await handle.read(head, 0, 8, 0).catch((e: NodeJS.ErrnoException) => {
      // A directory opens but does not read.
      if (e.code === 'EISDIR') return { bytesRead: -1 };
      throw e;
    });
    if (bytesRead === -1) return { ok: false, reason: 'its GGUF path is a directory, not a file', where: file };
    if (bytesRead < 8 || !head.subarray(0, 4).equals(GGUF_MAGIC)) return { ok: false, reason: 'its model file is not a GGUF file (wrong header)', where: file };
    const version = head.readUInt32LE(4);
    if (version < 1 || version > 3) return { ok: false, reason: `its GGUF file has an unknown format version (${version})`, where: file };
    return { ok: true, where: file };
  } finally {
    await handle.close();
  }
}

/** Why a request did not get an answer, in words for a client (no address). */
export function transportReason(e: unknown, timeoutMs: number): string {
  if (
    e instanceof undiciErrors.HeadersTimeoutError ||
    e instanceof undiciErrors.BodyTimeoutError ||
    (e as Error).name === 'AbortError' ||
    (e as Error).name === 'TimeoutError'
  )
    return `the upstream did not answer within ${timeoutMs} ms`;
  const code = (e as NodeJS.ErrnoException).code ?? ((e as { cause?: NodeJS.ErrnoException }).cause?.code as string | undefined);
  switch (code) {
    case 'ECONNREFUSED':
      return 'the upstream refused the connection (nothing listens on its port)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return "the upstream's host name does not resolve";
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the upstream closed the connection';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return "the upstream's host cannot be reached";
    case 'CERT_HAS_EXPIRED':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `the upstream's TLS certificate is not accepted (${code})`;
    default:
      return `the upstream cannot be reached (${code ?? 'connection failed'})`;
  }
}

interface Fetched {
  status: number;
  json: unknown;
}

async function getJson(url: string, headers: Record<string, string>, timeoutMs: number): Promise<Fetched> {
  const res = await request(url, {
    method: 'GET',
    headers: { accept: 'application/json', ...headers },
    signal: AbortSignal.timeout(timeoutMs),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, json };
}

function statusReason(status: number, path: string): string {
  if (status === 401 || status === 403) return `the upstream refused its credentials (${status} on ${path}): check the key its apiKeyEnv names`;
  if (status === 404) return `the upstream has no ${path} (404): check its baseUrl, which usually ends in /v1`;
  return `the upstream answered ${path} with ${status}`;
}

/** `GET {base}/models` of an OpenAI-compatible API; notes (not fails) served models it does not list. */
async function probeOpenAIList(base: string, headers: Record<string, string>, timeoutMs: number, served: string[]): Promise<ProbeResult> {
  const url = `${base.replace(/\/+$/, '')}/models`;
  const where = safeUrl(url);
  let got: Fetched;
  try {
    got = await getJson(url, headers, timeoutMs);
  } catch (e) {
    return { ok: false, reason: transportReason(e, timeoutMs), where };
  }
  // Busy or still loading its weights: up, and its requests are answered 503 MODEL_AT_CAPACITY with Retry-After.
  if (got.status === 429 || got.status === 503) return { ok: true, where, note: `the upstream answered /models with ${got.status} (busy or loading)` };
  if (got.status < 200 || got.status > 299) return { ok: false, reason: statusReason(got.status, '/models'), where };
  const data = (got.json as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) return { ok: false, reason: 'the upstream answered /models with something other than an OpenAI model list', where };
  const ids = data.map((m) => (m as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string');
  // Some servers answer for names they do not list (Ollama's `llama3` for `llama3:latest`): a note, not a failure.
  const missing = ids.length > 0 ? served.filter((m) => !ids.includes(m)) : [];
  if (missing.length > 0) {
    const names = missing.map((m) => `"${m}"`).join(', ');
    return { ok: true, where, note: `the upstream does not list ${names} (it lists ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''})` };
  }
  return { ok: true, where };
}

/** Any HTTP answer below 500 at `path`: the server is up (ComfyUI, AUTOMATIC1111, rembg have no model list to read). */
async function probeReachable(base: string, path: string, headers: Record<string, string>, timeoutMs: number): Promise<ProbeResult> {
  const url = `${base.replace(/\/+$/, '')}${path}`;
  const where = safeUrl(url);
  try {
    const got = await getJson(url, headers, timeoutMs);
    if (got.status === 401 || got.status === 403 || got.status >= 500) return { ok: false, reason: statusReason(got.status, path), where };
    return { ok: true, where };
  } catch (e) {
    return { ok: false, reason: transportReason(e, timeoutMs), where };
  }
}

/** Every replica checked at once: down only when none answers, since requests still reach the others. */
async function probeReplicas(bases: string[], check: (base: string) => Promise<ProbeResult>): Promise<ProbeResult> {
  const results = await Promise.all(bases.map(check));
  const up = results.filter((r) => r.ok);
  if (up.length === 0) return results[0];
  const down = results.flatMap((r, i) => (r.ok ? [] : [`replica ${i + 1} of ${bases.length}: ${r.reason}`]));
  const notes = [...down, ...up.flatMap((r) => (r.ok && r.note ? [r.note] : []))];
  return { ok: true, where: up[0].where, ...(notes.length ? { note: notes.join('; ') } : {}) };
}

/**
 * Checks one engine as the catalogue declares it (`model.engine`, paths already resolved by the catalogue loader).
 * Engines that run in this process with nothing to find (the demo media engines, flite) are always ok.
 */
export async function probeEngine(spec: EngineSpec, opts: ProbeOptions = {}): Promise<ProbeResult> {
  const vars = opts.vars ?? (() => undefined);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const key = 'apiKeyEnv' in spec && spec.apiKeyEnv ? vars(spec.apiKeyEnv) : undefined;
  if ('apiKeyEnv' in spec && spec.apiKeyEnv && !key) return { ok: false, reason: `the environment variable ${spec.apiKeyEnv} (its API key) is not set` };
  const bearer: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  switch (spec.kind) {
    case 'llama':
      return probeGguf(spec.path, spec.demo === true);
    case 'openai': {
      const bases = Array.isArray(spec.baseUrl) ? spec.baseUrl : [spec.baseUrl];
      const own = spec.model ?? opts.modelId;
      const served = opts.served ?? (own ? [own] : []);
      return probeReplicas(bases, (b) => probeOpenAIList(b, bearer, timeoutMs, served));
    }
    case 'openai-images':
    case 'openai-audio':
    case 'openai-videos':
      // Media servers often have no model list (an image-only server): any answer but a refused key or a 5xx is up.
      return probeReachable(spec.baseUrl, '/models', bearer, timeoutMs);
    case 'a1111':
      return probeReachable(spec.baseUrl, '/sdapi/v1/options', key ? { authorization: `Basic ${Buffer.from(key).toString('base64')}` } : {}, timeoutMs);
    case 'comfyui': {
      // (A video workflow's path is resolved against the catalogue at job time; the image one is resolved already.)
      const workflow = await fs.access(spec.workflow).then(
        () => true,
        () => false,
      );
      if (!workflow) return { ok: false, reason: 'its ComfyUI workflow file does not exist', where: spec.workflow };
      return probeReachable(spec.baseUrl, '/system_stats', bearer, timeoutMs);
    }
    case 'comfyui-video':
      return probeReachable(spec.baseUrl, '/system_stats', bearer, timeoutMs);
    case 'rembg':
      return probeReachable(spec.baseUrl, '/', bearer, timeoutMs);
    default:
      return { ok: true };
  }
}
