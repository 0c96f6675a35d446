// Every setting the service reads from its environment, typed and defaulted in one place.
import path from 'node:path';
import { wireNames, type WireNames } from './api/wire.ts';
import { type LimitConfig, loadLimitConfig } from './limits/config.ts';
import { loadWalletConfig, type WalletConfig } from './wallet/config.ts';

/** An environment: process.env, or a plain object in tests. */
export type Env = Record<string, string | undefined>;

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** PostgreSQL when set; otherwise the embedded SQLite file under dataDir. */
  databaseUrl: string | undefined;
  /** Rate-limit counters shared through Redis when set; in process memory otherwise. */
  redisUrl: string | undefined;
  /** Namespace of Lagoon's Redis keys (several deployments, or test runs, can share one Redis). */
  redisPrefix: string;
  /** Rate limits by tier and the abuse block (defaults, with LAGOON_RATE_LIMITS merged over them). */
  limits: LimitConfig;
  /** Web augmentation prices in micro-USD (DIEM is priced the same: 1 DIEM = 1 USD of inference). */
  augmentPrices: { search: number; scrapedUrl: number; textParser: number };
  modelsFile: string | undefined;
  wire: WireNames;
  /** `<yyyymmdd>.<hhmmss>` sent as x-<word>-version. */
  revision: string;
  hostName: string;
  /** Upper bound on a JSON request body. */
  maxBodyBytes: number;
  /** A stream that has been silent this long gets an SSE comment, so proxies and load balancers keep it open. */
  sseKeepAliveMs: number;
  /** Timestamps on every response (x-<word>-timestamp). */
  timestampHeader: boolean;
  /** Wallet users: SIWX binding (LAGOON_PUBLIC_URL) and the x402 top-up rails (LAGOON_X402_*). */
  wallet: WalletConfig;
  dev: boolean;
}

function intEnv(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

/** A price in USD from the environment, as micro-units. */
function priceEnv(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  const usd = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(usd) || usd < 0) throw new Error(`${name} must be a non-negative number of USD, got "${raw}"`);
  return Math.round(usd * 1_000_000);
}

/** Revision string: LAGOON_REVISION, else derived from the start time (UTC). */
export function revisionOf(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10).replaceAll('-', '')}.${iso.slice(11, 19).replaceAll(':', '')}`;
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = path.resolve(env.LAGOON_DATA_DIR || './data');
  const port = intEnv(env, 'PORT', 3000);
  return {
    host: env.HOST || '0.0.0.0',
    port,
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.LAGOON_REDIS_PREFIX || 'lagoon',
    limits: loadLimitConfig(env),
    augmentPrices: {
      search: priceEnv(env, 'LAGOON_SEARCH_PRICE_USD', 0.01),
      scrapedUrl: priceEnv(env, 'LAGOON_SCRAPE_PRICE_USD', 0.01),
      textParser: priceEnv(env, 'LAGOON_TEXT_PARSER_PRICE_USD', 0.01),
    },
    modelsFile: env.LAGOON_MODELS || undefined,
    wire: wireNames(env.LAGOON_WIRE_NAME || 'service'),
    revision: env.LAGOON_REVISION || revisionOf(new Date()),
    hostName: env.LAGOON_HOST_NAME || (env.HOSTNAME ?? 'lagoon'),
    maxBodyBytes: intEnv(env, 'LAGOON_MAX_BODY_BYTES', 35 * 1024 * 1024),
    timestampHeader: env.LAGOON_TIMESTAMP_HEADER !== '0',
    sseKeepAliveMs: intEnv(env, 'LAGOON_SSE_KEEPALIVE_MS', 15_000),
    wallet: loadWalletConfig(env, port),
    dev: env.LAGOON_DEV === '1',
  };
}
