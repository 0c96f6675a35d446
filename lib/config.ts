// Every setting the service reads from its environment, in one table: name, default, parser and a one-line doc.
// loadConfig parses them all at start, reports every bad value in one error, and returns the typed Config that the
// rest of the code is given. No other file of the server reads process.env (lib/config.test.ts checks it, and that
// docs/OPERATING.md's configuration table lists exactly these settings: `node scripts/config-table.ts --write` rewrites it).
import path from 'node:path';
import { wireNames, type WireNames } from './api/wire.ts';
import { parseBaseCredits, parseCreditPrice, parseUpstreams, type RpcConfig, readTables, rpcConfigOf } from './crypto-rpc/config.ts';
import { type LimitConfig, loadLimitConfig } from './limits/config.ts';
import { parseSecretsKey } from './db/secret-box.ts';
import { parseAllowHosts } from './net/allow-hosts.ts';
import {
  parseEvmAddress,
  parseEvmKey,
  parseEvmNetwork,
  parseMaxTopUpUsd,
  parseSolanaAddress,
  parseSolanaNetwork,
  parseSolanaSecretKey,
  type WalletConfig,
  walletConfigOf,
  parsePerRequestMaxUsd,
  parseUptoNetworks,
} from './wallet/config.ts';

/** The levels of the structured log (pino's). */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/** An environment: process.env, or a plain object in tests. */
export type Env = Record<string, string | undefined>;

/** The web search provider (LAGOON_SEARCH_PROVIDER) and its settings. */
export type SearchConfig = { timeoutMs: number; maxResults: number } & (
  | { provider: 'searxng'; baseUrl: string }
  | { provider: 'brave'; apiKey: string; baseUrl: string | undefined }
);

/** The browser app's answers from an external OpenAI-compatible API instead of this server's own service. */
export interface RemoteConfig {
  /** Without trailing slashes. */
  baseUrl: string;
  /** Held by the server: sent upstream only, never to a browser. */
  apiKey: string;
  wire: WireNames;
}

/** What a new browser-app user starts with. */
export interface StartingCredit {
  /** Micro-USD granted once. */
  usd: number;
  /** Micro-DIEM per day. */
  diemDaily: number;
}

/** Brute-force and sign-up limits of the app's account routes. */
export interface AuthLimitConfig {
  failuresPerEmail: number;
  failuresPerIp: number;
  failureWindowSeconds: number;
  signUpsPerIpPerHour: number;
}

/** Durable jobs: media storage and how jobs are leased and run (lib/jobs). */
export interface JobsConfig {
  mediaDir: string;
  /** Media bytes kept at once; new jobs are refused past it. */
  mediaMaxBytes: number;
  /** Finished jobs (and their media) are deleted this long after they finished. */
  retentionMs: number;
  /** Jobs this instance runs at once. */
  workers: number;
  /** Jobs one account may have queued or running at once. */
  perAccount: number;
  /** A running job's lease; renewed every third of it while the job works. */
  leaseMs: number;
  /** How often idle workers look for queued jobs. */
  pollMs: number;
}

/** Account alerts (lib/alerts): how often they are evaluated and how webhooks are retried. */
export interface AlertsConfig {
  /** Every account with alerts is evaluated this often (settlements here evaluate theirs at once). */
  sweepMs: number;
  /** How often an instance looks for due deliveries (its own alerts are sent at once). */
  pollMs: number;
  /** The first retry's wait; each later one doubles it (at most 6 h), jittered. */
  retryBaseMs: number;
  /** Attempts per delivery before it is marked failed. */
  maxAttempts: number;
  /** One webhook attempt's time limit. */
  timeoutMs: number;
}

/** The audio engines' programs (lib/engines/audio/registry.ts). */
export interface AudioConfig {
  /** ffmpeg (a name on PATH or a path): decoding uploads, encoding speech. */
  ffmpegPath: string;
  /** pocketsphinx_continuous: the local transcription engine. */
  pocketsphinxPath: string;
  /** The largest media file /video/transcriptions fetches. */
  mediaMaxBytes: number;
  /** The longest text one /audio/queue job speaks, in characters. */
  queueMaxCharacters: number;
}

/** The browser app's settings. */
export interface AppConfig {
  /** Serve the browser app next to the API (LAGOON_NO_APP=1 turns it off). */
  enabled: boolean;
  /** The client IP is the last X-Forwarded-For entry (behind one reverse proxy) rather than the socket's peer. */
  trustProxy: boolean;
  /** Origins besides this server's (and the remote API's) the pages may load images from: the CSP's img-src. */
  imageOrigins: string[];
  /** Remote mode (INFERENCE_BASE_URL); undefined: this server's own engines. */
  remote: RemoteConfig | undefined;
  startingCredit: StartingCredit;
  authLimits: AuthLimitConfig;
  /** The secret that makes a sign-up the operator (LAGOON_OPERATOR_TOKEN); unset: one derived from the server's secret. */
  operatorToken: string | undefined;
  /** The most a chat's prompt spends on the user's memories, in (estimated) tokens; 0 turns memories off in prompts. */
  memoryTokens: number;
  /** The operator's pages and routes need a session begun with a second factor (TOTP or passkey). */
  operatorSecondFactor: boolean;
  /** Account mail (password reset) through SMTP; undefined: recovery by mail is off (the operator can still reset). */
  mail: MailConfig | undefined;
  /** Single sign-on through an OpenID Connect provider; undefined: off. */
  oidc: OidcConfig | undefined;
}

/** One OpenID Connect provider (lib/users/oidc.ts): the authorization code flow with PKCE, state and nonce. */
export interface OidcConfig {
  /** The issuer URL; its discovery document is read at start and cached. */
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  /** What the sign-in page's button says: "Sign in with <name>". */
  name: string;
  /** A person the provider knows but Lagoon does not gets an account (otherwise only existing users may link). */
  allowSignUp: boolean;
  /** Lowercased email domains allowed to sign in this way; empty: any. */
  emailDomains: string[];
}

export interface MailConfig {
  /** smtp://user:pass@host:port (STARTTLS when offered) or smtps:// (TLS from the start). */
  smtpUrl: string;
  /** The From address of account mail. */
  from: string;
  /** How long a reset link works. */
  resetTtlSeconds: number;
  /** Reset mails per address and per client IP per hour. */
  perEmailPerHour: number;
  perIpPerHour: number;
}

export interface TracingConfig {
  /** The OTLP/HTTP traces URL (e.g. http://collector:4318/v1/traces); unset: no tracing. */
  endpoint: string | undefined;
  serviceName: string;
  /** How long finished spans wait to leave together. */
  exportDelayMs: number;
}

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
  /** The web search provider; undefined: no web search. */
  search: SearchConfig | undefined;
  /** Every configured search provider, the default (`search`) first: `/augment/search` may pick one by name. */
  searchAll: SearchConfig[];
  /** Hosts that safeFetch may reach although they resolve to private addresses (canonical form). */
  fetchAllowHosts: string[];
  /** The audio engines' programs (lib/audio): ffmpeg, pocketsphinx, and the media /video/transcriptions fetches. */
  audio: AudioConfig;
  modelsFile: string | undefined;
  /** A short file of models added to the catalogue (lib/models/extra-catalogue.ts); `required` when set explicitly. */
  modelsExtra: { file: string; required: boolean };
  /** How often every engine is checked (lib/engines/health.ts); 0: never. */
  engineCheckMs: number;
  /** `owned_by` of every /models record. */
  modelsOwnedBy: string;
  wire: WireNames;
  /** `<yyyymmdd>.<hhmmss>` sent as x-<word>-version. */
  revision: string;
  hostName: string;
  /** Upper bound on a JSON request body. */
  maxBodyBytes: number;
  /** The largest answer kept for an Idempotency-Key's replays. */
  idempotencyMaxBytes: number;
  /** How long one receipt key signs. */
  receiptKeyRotateMs: number;
  /** OpenTelemetry traces (off without an endpoint; lib/metrics/tracing.ts). */
  tracing: TracingConfig;
  /** A stream that has been silent this long gets an SSE comment, so proxies and load balancers keep it open. */
  sseKeepAliveMs: number;
  /** The chat app's server-side tools (lib/tools): the tool loop's bounds, and whether MCP servers may run as local programs. */
  tools: {
    maxRounds: number;
    totalMs: number;
    callTimeoutMs: number;
    maxResultChars: number;
    mcpStdio: boolean;
    codeRunner: { enabled: boolean; memoryMb: number };
  };
  /** Defences against slow and hoarding clients (slowloris): header and request deadlines, connections per address. */
  connections: { headersTimeoutMs: number; requestTimeoutMs: number; maxPerIp: number };
  /** Timestamps on every response (x-<word>-timestamp). */
  timestampHeader: boolean;
  /**
   * Instance leases on a shared database (PostgreSQL): each instance renews its heartbeat every `heartbeatMs`; every
   * `sweepMs` the live ones release the holds of instances silent for `leaseMs` (lib/billing/instance-lease.ts).
   */
  holdLease: { heartbeatMs: number; leaseMs: number; sweepMs: number };
  /** With PostgreSQL: how often each instance re-reads the operator's catalogue changes (lib/models/operator-catalogue.ts). */
  catalogueRefreshMs: number;
  /** Seals the secrets kept in the database (lib/db/secret-box.ts); unset: the embedded store's key file, or none. */
  secretsKey: Buffer | undefined;
  /** The structured log's level (lib/log.ts): one line per request at `info`. */
  logLevel: LogLevel;
  /** Prometheus metrics at GET /metrics (lib/metrics): off unless enabled; a bearer token, else loopback callers only. */
  metrics: { enabled: boolean; token: string | undefined };
  /** Durable jobs (video, long audio; lib/jobs): where their media live and for how long, and how they are run. */
  jobs: JobsConfig;
  /** Account alerts (lib/alerts). */
  alerts: AlertsConfig;
  /** Wallet users: SIWX binding (LAGOON_PUBLIC_URL) and the x402 top-up rails (LAGOON_X402_*). */
  wallet: WalletConfig;
  /** The crypto JSON-RPC proxy (LAGOON_RPC_*): upstream nodes, prices, method tables, per-caller caps. */
  cryptoRpc: RpcConfig;
  /** The browser app (Next) and its routes. */
  app: AppConfig;
  /** End-to-end encryption (LAGOON_E2EE_*): the worker that holds the key, and how it rotates. */
  e2ee: E2eeConfig;
  dev: boolean;
  /**
   * A variable the model catalogue names (an upstream's `apiKeyEnv`, `${VAR}` in an engine path), from the
   * environment captured at start; `LAGOON_DATA_DIR` is the resolved data directory.
   */
  catalogueVar(name: string): string | undefined;
}

export interface E2eeConfig {
  /** A worker run on its own; undefined: the gateway starts its own child worker. */
  workerUrl: string | undefined;
  workerToken: string | undefined;
  rotateMs: number;
  workerHost: string;
  workerPort: number;
  /** The environment captured at start: a child worker reads the same catalogue and data directory from it. */
  environment: Readonly<Env>;
}

// Parsers: each gets the trimmed, non-empty raw value (or the default) and throws a reason that reads after the
// variable's name ("… must be …").

const text = (raw: string): string => raw;

function int(min: 0 | 1) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min) throw new Error(`must be a ${min ? 'positive ' : ''}whole number, got "${raw}"`);
    return n;
  };
}

/** A non-negative amount (USD or DIEM) as micro-units. */
function micros(raw: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`must be a non-negative number, got "${raw}"`);
  return Math.round(n * 1_000_000);
}

const ON = new Set(['1', 'true', 'yes', 'on']);
const OFF = new Set(['0', 'false', 'no', 'off']);
function flag(raw: string): boolean {
  const v = raw.toLowerCase();
  if (ON.has(v)) return true;
  if (OFF.has(v)) return false;
  throw new Error(`must be 1 or 0, got "${raw}"`);
}

function httpUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`is not a valid URL: "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`must be an http or https URL, got "${raw}"`);
  return raw;
}

function smtpUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('is not a valid URL');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error('must be an smtp:// or smtps:// URL');
  if (!url.hostname) throw new Error('must name a host');
  return raw;
}

function oneOf<const T extends string>(...values: T[]) {
  return (raw: string): T => {
    const v = raw.toLowerCase();
    if (!(values as string[]).includes(v)) throw new Error(`must be ${values.map((x) => `"${x}"`).join(' or ')}, got "${raw}"`);
    return v as T;
  };
}

function wireWord(raw: string): WireNames {
  try {
    return wireNames(raw);
  } catch {
    throw new Error(`must be a lowercase word (a letter, then up to 31 letters or digits), got "${raw}"`);
  }
}

const commaList = (raw: string): string[] =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const hostList = (raw: string): string[] => parseAllowHosts(raw.split(','), 'has a bad entry');

/** Comma-separated http(s) URLs, kept as their origins (safe to write into a Content-Security-Policy). */
function originList(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const origin = new URL(httpUrl(s)).origin;
      if (!/^https?:\/\/[A-Za-z0-9.\-[\]:]+$/.test(origin)) throw new Error(`has a bad origin: "${s}"`);
      return origin;
    });
}

interface Setting {
  /** The value used when the variable is unset or empty, as it would be written; none: the setting is optional. */
  default?: string;
  /** The configuration table's default column when the default is not a literal (derived at start); otherwise `default`. */
  shown?: string;
  parse(raw: string): unknown;
  /** One line for the configuration table of docs/OPERATING.md (Markdown). */
  doc: string;
}

/** The settings, in the configuration table's order. */
export const SETTINGS = {
  PORT: { default: '3000', parse: int(0), doc: 'the port the server listens on (API, app and `/healthz` on one port)' },
  HOST: { default: '0.0.0.0', parse: text, doc: 'the address the server listens on' },
  LAGOON_DATA_DIR: {
    default: './data',
    parse: (raw: string) => path.resolve(raw),
    doc: 'all embedded state: `lagoon.db` (SQLite), `secrets.key` (back it up with the database), `models/lagoon-demo.gguf`, `server.lock`',
  },
  DATABASE_URL: { parse: text, doc: 'PostgreSQL instead of SQLite. Needed for several server instances. Same schema and migrations, applied at start.' },
  LAGOON_MODELS: { shown: '`lib/models/default-catalogue.json`', parse: text, doc: 'the model catalogue file' },
  LAGOON_MODELS_EXTRA: {
    shown: '`$LAGOON_DATA_DIR/models.local.json`',
    parse: (raw: string) => path.resolve(raw),
    doc: 'a short file of models **added** to the catalogue (`npx lagoon model add` writes it; see [Connecting a real model](#connecting-a-real-model)); the default is read only when it exists',
  },
  LAGOON_ENGINE_CHECK_MS: {
    default: '30000',
    parse: int(0),
    doc: "how often every engine is checked (an upstream's `/models`, a GGUF's header); a broken one is rechecked every 5 s and its requests get 503 `ENGINE_DOWN`. 0: no checks",
  },
  LAGOON_MODELS_OWNED_BY: {
    shown: '`lagoon` (`venice.ai` with `LAGOON_WIRE_NAME=venice`)',
    parse: text,
    doc: 'the `owned_by` of every `/models` record (clients of the public API expect its own value)',
  },
  LAGOON_WIRE_NAME: {
    default: 'service',
    parse: wireWord,
    doc: 'the word in wire names: `service_parameters`, `include_service_system_prompt`, `x-service-*`. Set `venice` to serve the exact names of the public API the spec mirrors.',
  },
  REDIS_URL: {
    parse: text,
    doc: 'rate-limit and abuse-block counters in Redis, so several instances share one budget. Without it they live in process memory. If Redis becomes unreachable, each instance limits on its own (fail-open, logged) rather than refusing inference.',
  },
  LAGOON_REDIS_PREFIX: { default: 'lagoon', parse: text, doc: "namespace of Lagoon's Redis keys" },
  LAGOON_RATE_LIMITS: {
    parse: text,
    doc: 'a JSON file merged over the default rate limits (see [Rate limits](API.md#rate-limits)); a bad field stops the server with its path',
  },
  LAGOON_SEARCH_PROVIDER: {
    parse: (raw: string) => [...new Set(commaList(raw).map(oneOf('searxng', 'brave')))],
    doc: 'web search: `searxng` (with `LAGOON_SEARXNG_URL`) or `brave` (with `LAGOON_BRAVE_API_KEY`), or both comma-separated (the first is the default; `/augment/search` may name either in `search_provider`); unset: no web search',
  },
  LAGOON_SEARXNG_URL: { parse: httpUrl, doc: 'base URL of the SearXNG instance (its JSON API)' },
  LAGOON_BRAVE_API_KEY: { parse: text, doc: 'Brave Search subscription token' },
  LAGOON_BRAVE_URL: { shown: '`https://api.search.brave.com`', parse: httpUrl, doc: 'Brave Search API base URL (tests, proxies)' },
  LAGOON_SEARCH_RESULTS: { default: '5', parse: int(1), doc: 'the most results a search returns (a larger count asked for is cut to it)' },
  LAGOON_SEARCH_TIMEOUT_MS: { default: '5000', parse: int(1), doc: 'time limit of one web search' },
  LAGOON_SEARCH_PRICE_USD: { default: '0.01', parse: micros, doc: 'fee per web search' },
  LAGOON_SCRAPE_PRICE_USD: { default: '0.01', parse: micros, doc: 'fee per scraped URL' },
  LAGOON_TEXT_PARSER_PRICE_USD: { default: '0.01', parse: micros, doc: 'fee per `/augment/text-parser` call' },
  LAGOON_FETCH_ALLOW_HOSTS: {
    parse: hostList,
    doc: 'comma-separated hosts that may be fetched even though they resolve to private addresses (intranet files)',
  },
  LAGOON_FFMPEG_PATH: {
    default: 'ffmpeg',
    parse: text,
    doc: 'the ffmpeg program (speech encoding, decoding audio for transcription); missing, transcription answers 503 and speech only wav and pcm',
  },
  LAGOON_POCKETSPHINX_PATH: {
    default: 'pocketsphinx_continuous',
    parse: text,
    doc: 'the PocketSphinx program of the local transcription model; missing, that model answers 503 (the server says so at start)',
  },
  LAGOON_TRANSCRIBE_FETCH_MAX_BYTES: {
    default: String(100 * 1024 * 1024),
    shown: '100 MiB',
    parse: int(1),
    doc: 'the largest media file `/video/transcriptions` fetches from a URL',
  },
  LAGOON_AUDIO_QUEUE_MAX_CHARACTERS: {
    default: '100000',
    parse: int(1),
    doc: 'the longest text (in characters) one `/audio/queue` job speaks; longer is a 400',
  },
  LAGOON_REVISION: { shown: 'start time', parse: text, doc: 'the `x-service-version` value (`yyyymmdd.hhmmss`)' },
  LAGOON_HOST_NAME: { shown: '`$HOSTNAME`', parse: text, doc: 'the `x-service-host-name` header on errors' },
  LAGOON_MAX_BODY_BYTES: { default: String(35 * 1024 * 1024), shown: '35 MiB', parse: int(0), doc: 'request body limit (413 beyond it)' },
  LAGOON_OTEL_ENDPOINT: {
    shown: 'off',
    parse: text,
    doc: 'OpenTelemetry traces: the OTLP/HTTP traces URL (e.g. `http://collector:4318/v1/traces`); a span per request, metered call, engine call and settlement',
  },
  LAGOON_OTEL_SERVICE_NAME: { default: 'lagoon', parse: text, doc: "the traces' `service.name`" },
  LAGOON_OTEL_EXPORT_DELAY_MS: { default: '2000', parse: int(1), doc: 'how long finished spans wait to be sent together' },
  LAGOON_RECEIPT_KEY_DAYS: {
    default: '90',
    parse: int(1),
    doc: 'how long one Ed25519 receipt key signs before the next is made (every key stays published at /.well-known/lagoon-receipt-keys)',
  },
  LAGOON_IDEMPOTENCY_MAX_BYTES: {
    default: String(16 * 1024 * 1024),
    shown: '16 MiB',
    parse: int(0),
    doc: 'the largest answer kept for Idempotency-Key replays (24 h); a larger one is delivered once, and a retry hears 410',
  },
  LAGOON_HEADERS_TIMEOUT_MS: {
    default: '10000',
    parse: int(1),
    doc: 'a client must send all request headers within this time (slow-header attacks), else 408',
  },
  LAGOON_REQUEST_TIMEOUT_MS: {
    default: '120000',
    parse: int(1),
    doc: 'a client must send the whole request (headers and body) within this time, else 408; responses may stream longer',
  },
  LAGOON_MAX_CONNECTIONS_PER_IP: { default: '1024', parse: int(1), doc: 'open connections one client address may hold; more are answered 503 and closed' },
  LAGOON_SSE_KEEPALIVE_MS: {
    default: '15000',
    parse: int(0),
    doc: 'a stream silent this long gets an SSE comment (`: keep-alive`), so idle-timeout proxies keep it open',
  },
  LAGOON_TOOL_MAX_ROUNDS: {
    default: '6',
    parse: int(1),
    doc: 'the chat app’s tool loop: the most model rounds one answer makes (each round is billed as its own request)',
  },
  LAGOON_TOOL_TOTAL_MS: { default: '120000', parse: int(1), doc: 'the chat app’s tool loop: the time one answer may spend calling tools and the model' },
  LAGOON_TOOL_CALL_TIMEOUT_MS: { default: '30000', parse: int(1), doc: 'the time one tool call (an MCP server’s tool) may take' },
  LAGOON_TOOL_RESULT_MAX_CHARS: {
    default: '16000',
    parse: int(1),
    doc: 'a tool’s result is cut to this many characters before the model reads it (tool output is untrusted input)',
  },
  LAGOON_MCP_STDIO: {
    default: '0',
    parse: flag,
    doc: '`1` lets the operator add MCP servers that run as programs on this host (stdio); off, only HTTP servers may be added',
  },
  LAGOON_CODE_RUNNER: {
    default: '1',
    parse: flag,
    doc: '`0` takes the built-in code runner (JavaScript in QuickJS/WebAssembly, no host access) out of the chat’s tools',
  },
  LAGOON_CODE_RUNNER_MEMORY_MB: {
    default: '64',
    parse: int(1),
    doc: 'the memory one code-runner run may use (its time limit is `LAGOON_TOOL_CALL_TIMEOUT_MS`)',
  },
  LAGOON_HEARTBEAT_MS: {
    default: '10000',
    parse: int(1),
    doc: 'with PostgreSQL: how often an instance renews its heartbeat (its lease on the credit it holds)',
  },
  LAGOON_HOLD_LEASE_MS: {
    default: '45000',
    parse: int(1),
    doc: 'with PostgreSQL: an instance whose heartbeat is older than this is taken for dead, and the credit its requests held is released (at least twice `LAGOON_HEARTBEAT_MS`)',
  },
  LAGOON_CATALOGUE_REFRESH_MS: {
    default: '5000',
    parse: int(0),
    doc: 'with PostgreSQL: how often each instance re-reads the models the operator added, disabled or repriced in the browser (0: never; the instance that made the change applies it at once)',
  },
  LAGOON_SECRETS_KEY: {
    parse: parseSecretsKey,
    doc: 'seals the upstream keys the operator stores from the browser (AES-256-GCM; 64 hex digits, `openssl rand -hex 32`). Unset: the embedded store makes `$LAGOON_DATA_DIR/secrets.key`; with PostgreSQL keys can then only be named by variable, not stored (set the same key on every instance)',
  },
  LAGOON_HOLD_SWEEP_MS: {
    default: '15000',
    parse: int(1),
    doc: 'with PostgreSQL: how often each instance releases the holds of dead ones (and once at start)',
  },
  LAGOON_MEDIA_DIR: {
    shown: '`$LAGOON_DATA_DIR/media`',
    parse: (raw: string) => path.resolve(raw),
    doc: 'where finished video (and long audio) jobs keep their media until retrieved; with several instances, a directory they all share (NFS or similar)',
  },
  LAGOON_MEDIA_MAX_BYTES: {
    default: String(10 * 1024 ** 3),
    shown: '10 GiB',
    parse: int(1),
    doc: 'media kept at once; past it, new jobs are refused (503) until media are retrieved, completed or expire',
  },
  LAGOON_MEDIA_RETENTION_SECONDS: { default: '86400', parse: int(1), doc: 'finished jobs older than this are deleted with their media (retrieve answers 404)' },
  LAGOON_JOB_WORKERS: { default: '2', parse: int(1), doc: 'jobs (video, long audio) one instance runs at once' },
  LAGOON_MAX_JOBS_PER_ACCOUNT: { default: '4', parse: int(1), doc: "an account's jobs queued or running at once; more are refused (429)" },
  LAGOON_JOB_LEASE_MS: {
    default: '30000',
    parse: int(1),
    doc: "a running job's lease, renewed while it works; a job whose instance died is taken over once it expires",
  },
  LAGOON_JOB_POLL_MS: {
    default: '1000',
    parse: int(1),
    doc: 'how often an idle instance looks for queued jobs (the safety net: a job queued on any instance wakes an idle one at once, through Redis or PostgreSQL)',
  },
  LAGOON_ALERT_SWEEP_MS: {
    default: '60000',
    parse: int(1),
    doc: 'how often every account with alerts is checked (low balance, key budgets); settlements on this instance check theirs at once',
  },
  LAGOON_ALERT_POLL_MS: { default: '2000', parse: int(1), doc: 'how often an instance looks for alert deliveries due (a retry, or an alert raised elsewhere)' },
  LAGOON_ALERT_RETRY_BASE_MS: {
    default: '30000',
    parse: int(1),
    doc: "a failed alert delivery's first retry waits this long; each next one twice as long (at most 6 h), with jitter",
  },
  LAGOON_ALERT_ATTEMPTS: { default: '8', parse: int(1), doc: 'attempts per alert delivery (webhook or mail) before it is marked failed' },
  LAGOON_ALERT_TIMEOUT_MS: { default: '10000', parse: int(1), doc: "one webhook attempt's time limit (a timeout is retried like a non-2xx answer)" },
  LAGOON_TIMESTAMP_HEADER: { default: '1', parse: flag, doc: '`0` turns off `x-service-timestamp`' },
  LAGOON_LOG_LEVEL: {
    shown: '`info` (`error` when `NODE_ENV=test`)',
    parse: oneOf('trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'),
    doc: 'the JSON log on stdout: `info` writes one line per request (id, route, status, duration, account, model); `warn` only problems',
  },
  LAGOON_METRICS: { default: '0', parse: flag, doc: '`1` serves Prometheus metrics at `GET /metrics`' },
  LAGOON_METRICS_TOKEN: { parse: text, doc: '`/metrics` asks for `Authorization: Bearer <this>`; unset: only loopback clients may read it' },
  LAGOON_NO_APP: { default: '0', parse: flag, doc: '`1` serves the API without the browser app (headless deployments, benchmarks)' },
  LAGOON_OPERATOR_TOKEN: {
    parse: text,
    doc: 'the secret a sign-up must carry to become the operator (`/sign-up?setup=<this>`); unset: the server makes one and logs its link while no operator exists',
  },
  LAGOON_OPERATOR_REQUIRE_2FA: {
    default: '0',
    parse: flag,
    doc: "`1`: the operator's pages and routes need a sign-in with a second factor (two-step code or passkey), not a password alone",
  },
  LAGOON_SMTP_URL: {
    parse: smtpUrl,
    doc: 'the SMTP server of account mail (password reset), e.g. `smtps://user:pass@mail.example.com:465`; unset: recovery by mail is off',
  },
  LAGOON_SMTP_FROM: { parse: text, doc: 'the From address of account mail (default `Lagoon <no-reply@` the public host `>`)' },
  LAGOON_OIDC_ISSUER: {
    parse: httpUrl,
    doc: 'single sign-on: the OpenID Connect issuer URL (its `/.well-known/openid-configuration` is read at start); unset: no single sign-on. `https` unless on loopback',
  },
  LAGOON_OIDC_CLIENT_ID: { parse: text, doc: "single sign-on: this server's client id at the provider (required with `LAGOON_OIDC_ISSUER`)" },
  LAGOON_OIDC_CLIENT_SECRET: {
    parse: text,
    doc: "single sign-on: the client's secret (`client_secret_basic`); unset: a public client (PKCE only). Redirect URI: `<LAGOON_PUBLIC_URL>/api/app/auth/sso/callback`",
  },
  LAGOON_OIDC_NAME: { default: 'SSO', parse: text, doc: 'single sign-on: the provider\'s name on the sign-in page ("Sign in with <name>")' },
  LAGOON_OIDC_ALLOW_SIGNUP: {
    default: '0',
    parse: flag,
    doc: '`1`: a person the provider signs in who has no Lagoon account gets one (with the starting credit); `0`: only existing users, linked by verified email',
  },
  LAGOON_OIDC_EMAIL_DOMAINS: {
    parse: commaList,
    doc: 'single sign-on: comma-separated email domains allowed to sign in this way (e.g. `example.com`); unset: any',
  },
  LAGOON_RESET_TTL_SECONDS: { default: '3600', parse: int(1), doc: 'how long a password-reset link works' },
  LAGOON_RESET_MAILS_PER_EMAIL_PER_HOUR: { default: '3', parse: int(1), doc: 'password-reset mails per address per hour' },
  LAGOON_RESET_MAILS_PER_IP_PER_HOUR: { default: '10', parse: int(1), doc: 'password-reset requests per client IP per hour' },
  LAGOON_MEMORY_TOKENS: {
    default: '600',
    parse: int(0),
    doc: "the most of a chat's prompt the user's saved memories may take, in estimated tokens (the newest that fit go in); `0` leaves memories out of every prompt",
  },
  LAGOON_E2EE_WORKER_URL: {
    parse: httpUrl,
    doc: 'an E2EE worker run on its own (on a TEE host: see [E2EE.md](E2EE.md)); unset: the server starts one as its child on first use',
  },
  LAGOON_E2EE_WORKER_TOKEN: {
    parse: text,
    doc: 'the bearer token the gateway and its E2EE worker share (at least 32 characters); required with `LAGOON_E2EE_WORKER_URL`, made at random for a child worker',
  },
  LAGOON_E2EE_KEY_ROTATE_MS: {
    default: '86400000',
    parse: int(0),
    doc: 'how often the E2EE worker replaces its key (clients of the old one are told to attest again); 0: only when it restarts',
  },
  LAGOON_E2EE_WORKER_HOST: { default: '127.0.0.1', parse: text, doc: 'the address an E2EE worker listens on' },
  LAGOON_E2EE_WORKER_PORT: {
    default: '0',
    parse: int(0),
    doc: 'the port an E2EE worker listens on (0: any free one, reported to the gateway that started it)',
  },
  LAGOON_DEV: { default: '0', parse: flag, doc: '`1` runs Next in development mode (also `npm run dev`)' },
  LAGOON_NEW_USER_USD: { default: '0', parse: micros, doc: "a browser-app user's one-off starting grant in USD" },
  LAGOON_NEW_USER_DIEM: { default: '1', parse: micros, doc: "a browser-app user's daily DIEM allowance" },
  INFERENCE_BASE_URL: {
    parse: httpUrl,
    doc: "the browser app's answers come from this OpenAI-compatible API (with `INFERENCE_API_KEY`) instead of this server's own service",
  },
  INFERENCE_API_KEY: { parse: text, doc: 'the server-held key for `INFERENCE_BASE_URL` (sent upstream only)' },
  INFERENCE_WIRE_NAME: { shown: '`LAGOON_WIRE_NAME`', parse: wireWord, doc: "the wire word of `INFERENCE_BASE_URL`'s extensions (`venice` for Venice)" },
  LAGOON_SIGNIN_MAX_FAILURES: { default: '10', parse: int(1), doc: 'failed browser-app sign-ins per email within the window' },
  LAGOON_SIGNIN_MAX_FAILURES_PER_IP: { default: '30', parse: int(1), doc: 'failed browser-app sign-ins per client IP within the window' },
  LAGOON_SIGNIN_WINDOW_SECONDS: {
    default: '900',
    parse: int(1),
    doc: 'the window of the sign-in failure limits (shared through Redis when `REDIS_URL` is set)',
  },
  LAGOON_SIGNUPS_PER_IP_PER_HOUR: { default: '20', parse: int(1), doc: 'browser-app sign-ups per client IP per hour' },
  LAGOON_TRUST_PROXY: { default: '0', parse: flag, doc: '`1` takes the client IP from the proxy-appended `X-Forwarded-For` (only behind a proxy you run)' },
  LAGOON_IMAGE_ORIGINS: {
    parse: originList,
    doc: "comma-separated origins the app's pages may also load images from (character photos on another host); the Content-Security-Policy blocks all others",
  },
  LAGOON_PUBLIC_URL: {
    shown: '`http://localhost:$PORT`',
    parse: httpUrl,
    doc: 'the origin wallet users reach the service at; Sign-In-With-X messages must name it (see [WALLETS.md](WALLETS.md))',
  },
  LAGOON_SIWX_MAX_AGE_SECONDS: { default: '300', parse: int(1), doc: 'how old a Sign-In-With-X message may be (and how long its nonce lives)' },
  LAGOON_SIWX_STATEMENT: { default: 'Sign in to Lagoon', parse: text, doc: 'the statement of Sign-In-With-X messages' },
  LAGOON_X402_BASE_NETWORK: { default: 'base', parse: parseEvmNetwork, doc: 'the EVM chain of USDC top-ups: `base` or `base-sepolia`' },
  LAGOON_X402_BASE_PAY_TO: { parse: parseEvmAddress, doc: 'the address Base USDC top-ups are paid to (offers the Base rail)' },
  LAGOON_X402_BASE_RPC_URL: { parse: httpUrl, doc: 'Base RPC: in-process settlement and smart-wallet (ERC-1271 / ERC-6492) sign-in' },
  LAGOON_X402_BASE_FACILITATOR_KEY: { parse: parseEvmKey, doc: "the in-process facilitator's hot wallet on Base (pays the gas of settlement)" },
  LAGOON_X402_SOLANA_NETWORK: { default: 'mainnet', parse: parseSolanaNetwork, doc: 'the Solana cluster of USDC top-ups: `mainnet` or `devnet`' },
  LAGOON_X402_SOLANA_PAY_TO: { parse: parseSolanaAddress, doc: 'the address Solana USDC top-ups are paid to (offers the Solana rail)' },
  LAGOON_X402_SOLANA_RPC_URL: { parse: httpUrl, doc: 'Solana RPC for in-process settlement' },
  LAGOON_X402_SOLANA_FEE_PAYER_KEY: {
    parse: parseSolanaSecretKey,
    doc: "the in-process facilitator's Solana fee payer: a 64-byte secret key, base58 or a JSON array",
  },
  LAGOON_X402_FACILITATOR_URL: { parse: httpUrl, doc: 'a remote x402 facilitator (verify/settle over HTTP) instead of the in-process one' },
  LAGOON_X402_MAX_TOPUP_USD: { default: '10000', parse: parseMaxTopUpUsd, doc: 'the largest single top-up, in USD (at least 5)' },
  LAGOON_X402_PER_REQUEST: {
    default: '0',
    parse: flag,
    doc: '`1`: a chat, image or JSON-RPC request without credentials may be paid on the spot with x402 (`exact` for images and JSON-RPC calls, `upto` a cap for chat)',
  },
  LAGOON_X402_PER_REQUEST_MAX_USD: {
    default: '5',
    parse: parsePerRequestMaxUsd,
    doc: 'the most one request paid on the spot may cost (its price, or the cap of an `upto` payment), in USD',
  },
  LAGOON_X402_STALE_CLAIM_MS: {
    default: '600000',
    parse: int(1),
    doc: "how long an x402 payment's claim may go untouched before its attempt is taken for dead: a top-up's is then taken over (and finds an earlier settlement on chain), an `upto` payment's is finished by the recovery sweep, which runs every half of this (at most every minute)",
  },
  LAGOON_X402_UPTO_NETWORKS: {
    default: 'base',
    parse: parseUptoNetworks,
    doc: "the EVM networks (`base`, `base-sepolia`, comma-separated, or `none`) where chat paid on the spot uses x402's own `upto` scheme: the payer approves Permit2 once, authorises the cap, and only what the chat used is settled. Elsewhere `upto` is signed as an exact payment of the cap and the unused part stays the wallet's credit. Needs Permit2 and x402's upto proxy on that chain (both are on Base)",
  },
  LAGOON_RPC_UPSTREAMS: {
    parse: parseUpstreams,
    doc: 'the nodes of the crypto JSON-RPC proxy: `network=url,url;network=url` or a JSON object of URLs per network, in order of preference; only these networks are served. URLs may carry provider keys: they are never logged or returned',
  },
  LAGOON_RPC_CREDIT_PRICE_USD: { default: '0.0000007', parse: parseCreditPrice, doc: 'the price of one JSON-RPC credit in USD (DIEM alike)' },
  LAGOON_RPC_BASE_CREDITS: {
    parse: parseBaseCredits,
    doc: 'credits of a standard call per network, over the defaults (20 on most EVM chains, 30 on Solana and zkSync): `network=credits;…` or JSON',
  },
  LAGOON_RPC_ERROR_CREDITS: {
    default: '5',
    parse: int(1),
    doc: 'what a call the node answers with a JSON-RPC error costs, instead of the credits of its method',
  },
  LAGOON_RPC_TABLES: {
    parse: readTables,
    doc: 'a JSON file merged over the default networks (`{networks: {slug: {family, baseCredits, extensions}}}`) and method tables (`{methods: {evm: {method: "standard"|"advanced"|"large"|"refused"}}}`)',
  },
  LAGOON_RPC_REQUESTS_PER_MINUTE: {
    default: '100',
    parse: int(1),
    doc: 'JSON-RPC requests per minute per caller (a key or a wallet); shared through Redis when set',
  },
  LAGOON_RPC_CREDITS_PER_DAY: { default: '10000000', parse: int(1), doc: 'JSON-RPC credits per caller per rolling 24 hours; shared through Redis when set' },
  LAGOON_RPC_TIMEOUT_MS: { default: '30000', parse: int(1), doc: 'one upstream attempt of a JSON-RPC call, until its answer has arrived (504 beyond it)' },
  LAGOON_RPC_MAX_BODY_BYTES: {
    default: String(5 * 1024 * 1024),
    shown: '5 MiB',
    parse: int(1),
    doc: "a JSON-RPC request body's limit (413 beyond it): geth's own, which refuses larger bodies anyway",
  },
  LAGOON_RPC_HEALTH_INTERVAL_MS: {
    default: '15000',
    parse: int(1),
    doc: 'how often JSON-RPC upstreams are health-checked; a failed one is retried after 1 s, backing off up to this',
  },
} satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

type Parsed<S> = S extends { parse: (raw: string) => infer T } ? (S extends { default: string } ? T : T | undefined) : never;
/** Every setting parsed on its own, by name. */
export type Settings = { [K in SettingName]: Parsed<(typeof SETTINGS)[K]> };

/** Revision string: LAGOON_REVISION, else derived from the start time (UTC). */
export function revisionOf(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10).replaceAll('-', '')}.${iso.slice(11, 19).replaceAll(':', '')}`;
}

function invalid(problems: string[]): Error {
  return new Error(problems.length === 1 ? `Invalid configuration: ${problems[0]}` : `Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
}

/** Parses every setting; all bad values are reported together in one error naming each variable. */
export function parseSettings(env: Env): Settings {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(SETTINGS) as [string, Setting][]) {
    const raw = env[name]?.trim() || s.default;
    try {
      out[name] = raw === undefined ? undefined : s.parse(raw);
    } catch (e) {
      problems.push(`${name} ${(e as Error).message}`);
    }
  }
  if (problems.length) throw invalid(problems);
  return out as Settings;
}

function searchOf(v: Settings): SearchConfig[] {
  return (v.LAGOON_SEARCH_PROVIDER ?? []).map((name) => searchProviderOf(v, name));
}

function searchProviderOf(v: Settings, name: 'searxng' | 'brave'): SearchConfig {
  const common = { timeoutMs: v.LAGOON_SEARCH_TIMEOUT_MS, maxResults: v.LAGOON_SEARCH_RESULTS };
  if (name === 'searxng') {
    if (!v.LAGOON_SEARXNG_URL) throw new Error('LAGOON_SEARCH_PROVIDER=searxng needs LAGOON_SEARXNG_URL');
    return { provider: 'searxng', baseUrl: v.LAGOON_SEARXNG_URL, ...common };
  }
  if (!v.LAGOON_BRAVE_API_KEY) throw new Error('LAGOON_SEARCH_PROVIDER=brave needs LAGOON_BRAVE_API_KEY');
  return { provider: 'brave', apiKey: v.LAGOON_BRAVE_API_KEY, baseUrl: v.LAGOON_BRAVE_URL, ...common };
}

function remoteOf(v: Settings): RemoteConfig | undefined {
  if (!v.INFERENCE_BASE_URL) return undefined;
  if (!v.INFERENCE_API_KEY) throw new Error('INFERENCE_BASE_URL is set but INFERENCE_API_KEY is not: the app needs a key for the inference API');
  return { baseUrl: v.INFERENCE_BASE_URL.replace(/\/+$/, ''), apiKey: v.INFERENCE_API_KEY, wire: v.INFERENCE_WIRE_NAME ?? v.LAGOON_WIRE_NAME };
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function oidcOf(v: Settings): OidcConfig | undefined {
  if (!v.LAGOON_OIDC_ISSUER) {
    if (v.LAGOON_OIDC_CLIENT_ID) throw new Error('LAGOON_OIDC_CLIENT_ID is set but LAGOON_OIDC_ISSUER is not: single sign-on needs its provider');
    return undefined;
  }
  if (!v.LAGOON_OIDC_CLIENT_ID) throw new Error('LAGOON_OIDC_ISSUER is set but LAGOON_OIDC_CLIENT_ID is not: single sign-on needs its client id');
  const issuer = new URL(v.LAGOON_OIDC_ISSUER);
  // Tokens and the client secret travel to the provider: plain HTTP only to a provider on this machine (tests, dev).
  if (issuer.protocol !== 'https:' && !LOOPBACK_HOSTS.has(issuer.hostname)) throw new Error('LAGOON_OIDC_ISSUER must be an https URL (http only on loopback)');
  const emailDomains = (v.LAGOON_OIDC_EMAIL_DOMAINS ?? []).map((d) => d.toLowerCase().replace(/^@/, ''));
  return {
    issuer: v.LAGOON_OIDC_ISSUER,
    clientId: v.LAGOON_OIDC_CLIENT_ID,
    clientSecret: v.LAGOON_OIDC_CLIENT_SECRET,
    name: v.LAGOON_OIDC_NAME,
    allowSignUp: v.LAGOON_OIDC_ALLOW_SIGNUP,
    emailDomains,
  };
}

/** The configuration from an environment (process.env by default); throws one error listing every bad setting. */
export function loadConfig(env: Env = process.env): Config {
  const v = parseSettings(env);
  const problems: string[] = [];
  const check = <T>(build: () => T): T => {
    try {
      return build();
    } catch (e) {
      problems.push((e as Error).message);
      return undefined as T;
    }
  };
  const limits = check(() => {
    try {
      return loadLimitConfig(v.LAGOON_RATE_LIMITS);
    } catch (e) {
      throw new Error(`LAGOON_RATE_LIMITS ${(e as Error).message}`);
    }
  });
  const search = check(() => searchOf(v));
  // A lease shorter than two heartbeats would let a live instance's holds be taken for a dead one's.
  if (v.LAGOON_HOLD_LEASE_MS < 2 * v.LAGOON_HEARTBEAT_MS)
    problems.push(`LAGOON_HOLD_LEASE_MS must be at least twice LAGOON_HEARTBEAT_MS (${2 * v.LAGOON_HEARTBEAT_MS}), got ${v.LAGOON_HOLD_LEASE_MS}`);
  if (v.LAGOON_E2EE_WORKER_URL && (v.LAGOON_E2EE_WORKER_TOKEN ?? '').length < 32) {
    problems.push('LAGOON_E2EE_WORKER_TOKEN must be set (at least 32 characters) with LAGOON_E2EE_WORKER_URL: the worker answers only its gateway');
  }
  const remote = check(() => remoteOf(v));
  const oidc = check(() => oidcOf(v));
  const cryptoRpc = check(() =>
    rpcConfigOf({
      upstreams: v.LAGOON_RPC_UPSTREAMS,
      baseCredits: v.LAGOON_RPC_BASE_CREDITS,
      tables: v.LAGOON_RPC_TABLES,
      creditPriceUsd: v.LAGOON_RPC_CREDIT_PRICE_USD,
      errorCredits: v.LAGOON_RPC_ERROR_CREDITS,
      requestsPerMinute: v.LAGOON_RPC_REQUESTS_PER_MINUTE,
      creditsPerDay: v.LAGOON_RPC_CREDITS_PER_DAY,
      timeoutMs: v.LAGOON_RPC_TIMEOUT_MS,
      healthIntervalMs: v.LAGOON_RPC_HEALTH_INTERVAL_MS,
      maxBodyBytes: v.LAGOON_RPC_MAX_BODY_BYTES,
    }),
  );
  const wallet = check(() =>
    walletConfigOf(
      {
        publicUrl: v.LAGOON_PUBLIC_URL,
        evmNetwork: v.LAGOON_X402_BASE_NETWORK,
        solanaNetwork: v.LAGOON_X402_SOLANA_NETWORK,
        evmPayTo: v.LAGOON_X402_BASE_PAY_TO,
        evmRpcUrl: v.LAGOON_X402_BASE_RPC_URL,
        evmFacilitatorKey: v.LAGOON_X402_BASE_FACILITATOR_KEY,
        solanaPayTo: v.LAGOON_X402_SOLANA_PAY_TO,
        solanaRpcUrl: v.LAGOON_X402_SOLANA_RPC_URL,
        solanaFeePayerKey: v.LAGOON_X402_SOLANA_FEE_PAYER_KEY,
        facilitatorUrl: v.LAGOON_X402_FACILITATOR_URL,
        maxTopUpUsd: v.LAGOON_X402_MAX_TOPUP_USD,
        perRequest: v.LAGOON_X402_PER_REQUEST,
        perRequestMaxUsd: v.LAGOON_X402_PER_REQUEST_MAX_USD,
        uptoNetworks: v.LAGOON_X402_UPTO_NETWORKS,
        staleClaimMs: v.LAGOON_X402_STALE_CLAIM_MS,
        siwxMaxAgeSeconds: v.LAGOON_SIWX_MAX_AGE_SECONDS,
        siwxStatement: v.LAGOON_SIWX_STATEMENT,
      },
      v.PORT,
    ),
  );
  if (problems.length) throw invalid(problems);

  // The catalogue may name any variable; it sees the environment as it was at start.
  const captured: Env = { ...env };
  const dataDir = v.LAGOON_DATA_DIR;
  return {
    host: v.HOST,
    port: v.PORT,
    dataDir,
    databaseUrl: v.DATABASE_URL,
    redisUrl: v.REDIS_URL,
    redisPrefix: v.LAGOON_REDIS_PREFIX,
    limits,
    augmentPrices: { search: v.LAGOON_SEARCH_PRICE_USD, scrapedUrl: v.LAGOON_SCRAPE_PRICE_USD, textParser: v.LAGOON_TEXT_PARSER_PRICE_USD },
    search: search?.[0],
    searchAll: search ?? [],
    fetchAllowHosts: v.LAGOON_FETCH_ALLOW_HOSTS ?? [],
    audio: {
      ffmpegPath: v.LAGOON_FFMPEG_PATH,
      pocketsphinxPath: v.LAGOON_POCKETSPHINX_PATH,
      mediaMaxBytes: v.LAGOON_TRANSCRIBE_FETCH_MAX_BYTES,
      queueMaxCharacters: v.LAGOON_AUDIO_QUEUE_MAX_CHARACTERS,
    },
    modelsFile: v.LAGOON_MODELS,
    modelsExtra: { file: v.LAGOON_MODELS_EXTRA ?? path.join(dataDir, 'models.local.json'), required: v.LAGOON_MODELS_EXTRA !== undefined },
    engineCheckMs: v.LAGOON_ENGINE_CHECK_MS,
    modelsOwnedBy: v.LAGOON_MODELS_OWNED_BY ?? (v.LAGOON_WIRE_NAME.word === 'venice' ? 'venice.ai' : 'lagoon'),
    wire: v.LAGOON_WIRE_NAME,
    revision: v.LAGOON_REVISION ?? revisionOf(new Date()),
    hostName: v.LAGOON_HOST_NAME ?? (env.HOSTNAME?.trim() || 'lagoon'),
    maxBodyBytes: v.LAGOON_MAX_BODY_BYTES,
    idempotencyMaxBytes: v.LAGOON_IDEMPOTENCY_MAX_BYTES,
    receiptKeyRotateMs: v.LAGOON_RECEIPT_KEY_DAYS * 86_400_000,
    tracing: { endpoint: v.LAGOON_OTEL_ENDPOINT, serviceName: v.LAGOON_OTEL_SERVICE_NAME, exportDelayMs: v.LAGOON_OTEL_EXPORT_DELAY_MS },
    timestampHeader: v.LAGOON_TIMESTAMP_HEADER,
    sseKeepAliveMs: v.LAGOON_SSE_KEEPALIVE_MS,
    tools: {
      maxRounds: v.LAGOON_TOOL_MAX_ROUNDS,
      totalMs: v.LAGOON_TOOL_TOTAL_MS,
      callTimeoutMs: v.LAGOON_TOOL_CALL_TIMEOUT_MS,
      maxResultChars: v.LAGOON_TOOL_RESULT_MAX_CHARS,
      mcpStdio: v.LAGOON_MCP_STDIO,
      codeRunner: { enabled: v.LAGOON_CODE_RUNNER, memoryMb: v.LAGOON_CODE_RUNNER_MEMORY_MB },
    },
    holdLease: { heartbeatMs: v.LAGOON_HEARTBEAT_MS, leaseMs: v.LAGOON_HOLD_LEASE_MS, sweepMs: v.LAGOON_HOLD_SWEEP_MS },
    catalogueRefreshMs: v.LAGOON_CATALOGUE_REFRESH_MS,
    secretsKey: v.LAGOON_SECRETS_KEY,
    // Tests provoke engine failures on purpose (warnings): their output keeps only errors unless they ask for more.
    // The harness passes its own env, hence process.env too.
    logLevel: v.LAGOON_LOG_LEVEL ?? ((env.NODE_ENV ?? process.env.NODE_ENV) === 'test' ? 'error' : 'info'),
    metrics: { enabled: v.LAGOON_METRICS, token: v.LAGOON_METRICS_TOKEN },
    jobs: {
      mediaDir: v.LAGOON_MEDIA_DIR ?? path.join(dataDir, 'media'),
      mediaMaxBytes: v.LAGOON_MEDIA_MAX_BYTES,
      retentionMs: v.LAGOON_MEDIA_RETENTION_SECONDS * 1000,
      workers: v.LAGOON_JOB_WORKERS,
      perAccount: v.LAGOON_MAX_JOBS_PER_ACCOUNT,
      leaseMs: v.LAGOON_JOB_LEASE_MS,
      pollMs: v.LAGOON_JOB_POLL_MS,
    },
    alerts: {
      sweepMs: v.LAGOON_ALERT_SWEEP_MS,
      pollMs: v.LAGOON_ALERT_POLL_MS,
      retryBaseMs: v.LAGOON_ALERT_RETRY_BASE_MS,
      maxAttempts: v.LAGOON_ALERT_ATTEMPTS,
      timeoutMs: v.LAGOON_ALERT_TIMEOUT_MS,
    },
    connections: { headersTimeoutMs: v.LAGOON_HEADERS_TIMEOUT_MS, requestTimeoutMs: v.LAGOON_REQUEST_TIMEOUT_MS, maxPerIp: v.LAGOON_MAX_CONNECTIONS_PER_IP },
    wallet,
    cryptoRpc,
    app: {
      enabled: !v.LAGOON_NO_APP,
      trustProxy: v.LAGOON_TRUST_PROXY,
      imageOrigins: v.LAGOON_IMAGE_ORIGINS ?? [],
      remote,
      startingCredit: { usd: v.LAGOON_NEW_USER_USD, diemDaily: v.LAGOON_NEW_USER_DIEM },
      operatorToken: v.LAGOON_OPERATOR_TOKEN,
      memoryTokens: v.LAGOON_MEMORY_TOKENS,
      operatorSecondFactor: v.LAGOON_OPERATOR_REQUIRE_2FA,
      mail: v.LAGOON_SMTP_URL
        ? {
            smtpUrl: v.LAGOON_SMTP_URL,
            from: v.LAGOON_SMTP_FROM ?? `Lagoon <no-reply@${new URL(v.LAGOON_PUBLIC_URL ?? 'http://localhost').hostname}>`,
            resetTtlSeconds: v.LAGOON_RESET_TTL_SECONDS,
            perEmailPerHour: v.LAGOON_RESET_MAILS_PER_EMAIL_PER_HOUR,
            perIpPerHour: v.LAGOON_RESET_MAILS_PER_IP_PER_HOUR,
          }
        : undefined,
      oidc,
      authLimits: {
        failuresPerEmail: v.LAGOON_SIGNIN_MAX_FAILURES,
        failuresPerIp: v.LAGOON_SIGNIN_MAX_FAILURES_PER_IP,
        failureWindowSeconds: v.LAGOON_SIGNIN_WINDOW_SECONDS,
        signUpsPerIpPerHour: v.LAGOON_SIGNUPS_PER_IP_PER_HOUR,
      },
    },
    dev: v.LAGOON_DEV,
    e2ee: {
      workerUrl: v.LAGOON_E2EE_WORKER_URL,
      workerToken: v.LAGOON_E2EE_WORKER_TOKEN,
      rotateMs: v.LAGOON_E2EE_KEY_ROTATE_MS,
      workerHost: v.LAGOON_E2EE_WORKER_HOST,
      workerPort: v.LAGOON_E2EE_WORKER_PORT,
      // The process's own environment under the captured one: a child needs PATH and HOME, which a test's may lack.
      environment: { ...process.env, ...captured, LAGOON_DATA_DIR: dataDir },
    },
    catalogueVar: (name) => (name === 'LAGOON_DATA_DIR' ? dataDir : captured[name]),
  };
}

/** docs/OPERATING.md's configuration table (between its markers), generated from SETTINGS. */
export function configTable(): string {
  const rows = (Object.entries(SETTINGS) as [string, Setting][]).map(([name, s]) => {
    const shown = s.shown ?? (s.default === undefined ? 'unset' : `\`${s.default}\``);
    return `| \`${name}\` | ${shown} | ${s.doc.replaceAll('|', '\\|')} |`;
  });
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}
