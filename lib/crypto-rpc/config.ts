// The JSON-RPC proxy's settings: upstream nodes per network, prices (USD per credit, base credits per network, the
// flat credits of a JSON-RPC error), the method tables, per-caller caps and timeouts. lib/config.ts reads the
// variables with the parsers below. Upstream URLs often carry a provider's key (in the path, the query or the user
// part), so no message here ever repeats one: a bad entry is named by its network and position.
import fs from 'node:fs';
import { z } from 'zod';
import { DEFAULT_METHOD_SETS, type MethodRule, type MethodTable } from './methods.ts';
import { DEFAULT_NETWORKS, FAMILIES, type Family, NETWORK_SLUG, type NetworkSpec } from './networks.ts';

export interface RpcConfig {
  /** Upstream URLs by network slug, in order of preference (secrets included: never log or return them). */
  upstreams: Map<string, string[]>;
  /** Every known network (the defaults with LAGOON_RPC_TABLES and LAGOON_RPC_BASE_CREDITS applied). */
  networks: Map<string, NetworkSpec>;
  methodSets: Record<string, MethodTable>;
  /** USD per credit (DIEM alike: 1 DIEM buys 1 USD of service). */
  creditPriceUsd: number;
  /** What a JSON-RPC error answer costs instead of its method's credits. */
  errorCredits: number;
  /** Per caller: requests per minute and credits per rolling 24 hours. */
  requestsPerMinute: number;
  creditsPerDay: number;
  /** One upstream attempt, from dispatch to the last byte of the answer. */
  timeoutMs: number;
  /** How often upstreams are health-checked; a failed one is probed sooner, backing off up to this. */
  healthIntervalMs: number;
  /** A request body's limit: nodes refuse larger ones (geth at 5 MiB, anvil at 2), so reading them is waste. */
  maxBodyBytes: number;
}

/** `network=url,url;network=url`, or a JSON object of a URL or a list of URLs per network. */
export function parseUpstreams(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (network: string, urls: unknown[]) => {
    if (!NETWORK_SLUG.test(network)) throw new Error(`has a bad network name "${network.slice(0, 64)}" (lowercase words joined by hyphens)`);
    if (out.has(network)) throw new Error(`names ${network} twice`);
    if (urls.length === 0) throw new Error(`gives ${network} no URL`);
    urls.forEach((u, i) => {
      if (typeof u !== 'string' || !isHttpUrl(u)) throw new Error(`has an entry for ${network} (URL ${i + 1}) that is not an http or https URL`);
    });
    out.set(network, urls as string[]);
  };
  if (raw.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new Error('is not valid JSON');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('must be a JSON object of network → URL or URLs');
    for (const [network, urls] of Object.entries(parsed)) add(network, Array.isArray(urls) ? urls : [urls]);
    return out;
  }
  for (const [i, entry] of raw.split(';').entries()) {
    if (!entry.trim()) continue;
    const eq = entry.indexOf('=');
    if (eq < 0) throw new Error(`entry ${i + 1} must be network=url[,url…]`);
    add(
      entry.slice(0, eq).trim(),
      entry
        .slice(eq + 1)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  }
  return out;
}

function isHttpUrl(raw: string): boolean {
  try {
    const u = new URL(raw);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** `network=credits;…` or a JSON object of credits per network. */
export function parseBaseCredits(raw: string): Map<string, number> {
  const entries: [string, unknown][] = raw.startsWith('{')
    ? Object.entries(jsonObject(raw))
    : raw
        .split(';')
        .filter((e) => e.trim())
        .map((e) => {
          const [network, credits] = e.split('=').map((s) => s.trim());
          return [network ?? '', credits === undefined || credits === '' ? Number.NaN : Number(credits)];
        });
  const out = new Map<string, number>();
  for (const [network, credits] of entries) {
    if (!NETWORK_SLUG.test(network)) throw new Error(`has a bad network name "${network.slice(0, 64)}"`);
    if (!Number.isSafeInteger(credits) || (credits as number) < 1) throw new Error(`must give ${network} a whole number of credits of at least 1`);
    out.set(network, credits as number);
  }
  return out;
}

function jsonObject(raw: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw new Error('is not valid JSON');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('must be a JSON object');
  return v as Record<string, unknown>;
}

/** A positive price in USD (fractions of a micro-USD allowed: the default is 0.7 micro-USD a credit). */
export function parseCreditPrice(raw: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new Error(`must be a price in USD from 0 to 1, got "${raw}"`);
  return n;
}

const ruleSchema = z.union([
  z.enum(['standard', 'advanced', 'large', 'refused']),
  z.strictObject({ tier: z.enum(['standard', 'advanced', 'large']), sends: z.boolean().optional() }),
]);
const methodKey = z.string().regex(/^(\*?[A-Za-z][A-Za-z0-9_]*\*?|\*[A-Za-z0-9_]+)$/, 'must be a method name, or a pattern with one * at the start or end');
const tablesSchema = z.strictObject({
  networks: z
    .record(
      z.string().regex(NETWORK_SLUG, 'must be lowercase words joined by hyphens'),
      z.strictObject({
        family: z.enum(FAMILIES as [Family, ...Family[]]),
        baseCredits: z.number().int().positive(),
        extensions: z.array(z.string()).optional(),
      }),
    )
    .optional(),
  methods: z.record(z.string().regex(/^[a-z][a-z0-9_-]*$/), z.record(methodKey, ruleSchema)).optional(),
});
export type RpcTables = z.infer<typeof tablesSchema>;

/** LAGOON_RPC_TABLES: a JSON file of networks and method rules merged over the defaults. */
export function readTables(file: string): RpcTables {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot be read: ${(e as Error).message}`);
  }
  const parsed = tablesSchema.safeParse(jsonObject(text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`has a bad field at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

const toRule = (r: z.infer<typeof ruleSchema>): MethodRule => (typeof r === 'string' ? (r === 'refused' ? { refused: 'refused' } : { tier: r }) : r);

export interface RpcSettings {
  upstreams: Map<string, string[]> | undefined;
  baseCredits: Map<string, number> | undefined;
  tables: RpcTables | undefined;
  creditPriceUsd: number;
  errorCredits: number;
  requestsPerMinute: number;
  creditsPerDay: number;
  timeoutMs: number;
  healthIntervalMs: number;
  maxBodyBytes: number;
}

/** The proxy's configuration; throws naming the first setting that refers to an unknown network or method set. */
export function rpcConfigOf(s: RpcSettings): RpcConfig {
  const methodSets: Record<string, MethodTable> = { ...DEFAULT_METHOD_SETS };
  for (const [set, rules] of Object.entries(s.tables?.methods ?? {})) {
    methodSets[set] = {
      ...(Object.hasOwn(methodSets, set) ? methodSets[set] : {}),
      ...Object.fromEntries(Object.entries(rules).map(([m, r]) => [m, toRule(r)])),
    };
  }
  const networks = new Map<string, NetworkSpec>(Object.entries(DEFAULT_NETWORKS).map(([slug, spec]) => [slug, { ...spec, extensions: [...spec.extensions] }]));
  for (const [slug, spec] of Object.entries(s.tables?.networks ?? {})) {
    const extensions = spec.extensions ?? [];
    const unknown = extensions.find((e) => !Object.hasOwn(methodSets, e));
    if (unknown) throw new Error(`LAGOON_RPC_TABLES: network ${slug} names the method set "${unknown}", which no table defines`);
    networks.set(slug, { family: spec.family, baseCredits: spec.baseCredits, extensions });
  }
  for (const [slug, credits] of s.baseCredits ?? []) {
    const spec = networks.get(slug);
    if (!spec) throw new Error(`LAGOON_RPC_BASE_CREDITS names ${slug}, which is not a known network (add it in LAGOON_RPC_TABLES)`);
    spec.baseCredits = credits;
  }
  const upstreams = s.upstreams ?? new Map<string, string[]>();
  for (const slug of upstreams.keys()) {
    if (!networks.has(slug)) throw new Error(`LAGOON_RPC_UPSTREAMS names ${slug}, which is not a known network (add it in LAGOON_RPC_TABLES)`);
  }
  return {
    upstreams,
    networks,
    methodSets,
    creditPriceUsd: s.creditPriceUsd,
    errorCredits: s.errorCredits,
    requestsPerMinute: s.requestsPerMinute,
    creditsPerDay: s.creditsPerDay,
    timeoutMs: s.timeoutMs,
    healthIntervalMs: s.healthIntervalMs,
    maxBodyBytes: s.maxBodyBytes,
  };
}
