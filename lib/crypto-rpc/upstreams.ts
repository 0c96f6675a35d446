// The nodes behind each network: one undici connection pool per upstream URL, tried in the configured order. An
// upstream that fails (no connection, a timeout, a 5xx or 429, an answer that is not JSON) is taken out and probed
// with the family's health call, after 1 s, then backing off up to the health interval, until it answers; healthy
// ones are probed every interval unless traffic just proved them. A read-only call fails over to the next upstream;
// a call that changes state (a signed transaction, a user operation) fails over only when its connection could not
// be opened, so it is never sent twice. Upstream URLs carry secrets: logs and errors name an upstream `network#n`.
import { Pool } from 'undici';
import { ApiError } from '../api/errors.ts';
import { type Family, HEALTH_METHOD } from './networks.ts';
import { log } from '../log.ts';

/** The largest answer relayed (trace and block answers can be large; a bigger one fails like a broken node). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;
/** Connections per upstream: the most calls in flight to one node from this instance. */
const CONNECTIONS = 128;
const FIRST_RETRY_MS = 1000;
const PROBE_TIMEOUT_MS = 5000;

/** unsent: the connection could not be opened, so the node never saw the call. */
export type FailureKind = 'unsent' | 'timeout' | 'failed' | 'aborted';

export class UpstreamFailure extends Error {
  readonly kind: FailureKind;
  constructor(kind: FailureKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

// Errors raised before a request could be written: no route, no listener, no DNS answer, no TCP handshake in time.
const UNSENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

// A connection that closed under a call (the message of such a failure is its code).
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

function codeOf(e: unknown): string {
  const err = e as { code?: unknown; cause?: { code?: unknown } };
  const code = err?.code ?? err?.cause?.code;
  return typeof code === 'string' ? code : 'ERROR';
}

export interface UpstreamAnswer {
  /** The node's answer as it sent it (relayed byte for byte: numbers beyond 2^53 stay exact). */
  text: string;
  /** The same, parsed (undefined when the node sent nothing: a batch of notifications). */
  json: unknown;
  upstream: string;
}

export interface UpstreamOptions {
  timeoutMs: number;
  healthIntervalMs: number;
  /** Where take-outs and recoveries are reported (the server log by default). */
  log?: (message: string) => void;
}

class Upstream {
  readonly label: string;
  up = true;
  failures = 0;
  /** When the next health probe is due (0: at the first tick). */
  nextProbeAt = 0;
  probing = false;
  private readonly pool: Pool;
  private readonly path: string;
  private readonly headers: Record<string, string>;

  constructor(label: string, url: string) {
    this.label = label;
    const u = new URL(url);
    this.path = `${u.pathname || '/'}${u.search}`;
    this.headers = { 'content-type': 'application/json', accept: 'application/json' };
    // Credentials in the URL's user part become Basic auth, as a browser or curl would send them.
    if (u.username || u.password) {
      const user = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
      this.headers.authorization = `Basic ${Buffer.from(user).toString('base64')}`;
    }
    // undici's default keep-alive (4 s, or the node's own Keep-Alive hint) stays under most nodes' idle timeouts.
    this.pool = new Pool(u.origin, { connections: CONNECTIONS, pipelining: 1 });
  }

  /** POSTs a body; resolves with the status and the whole answer, or throws an UpstreamFailure. */
  async post(body: string | Buffer, timeoutMs: number, signal?: AbortSignal): Promise<{ status: number; text: string }> {
    // One controller and a plain timer: the deadline runs from dispatch to the answer's last byte.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal?.aborted) throw new UpstreamFailure('aborted', 'the client went away');
      const res = await this.pool.request({
        path: this.path,
        method: 'POST',
        headers: this.headers,
        body,
        signal: controller.signal,
        // Our timer is the one that counts; undici's own are only a backstop.
        headersTimeout: timeoutMs + 1000,
        bodyTimeout: timeoutMs + 1000,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
          res.body.destroy();
          throw new UpstreamFailure('failed', `the answer is larger than ${MAX_ANSWER_BYTES / 1048576} MB`);
        }
        chunks.push(chunk);
      }
      return { status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') };
    } catch (e) {
      if (e instanceof UpstreamFailure) throw e;
      if (timedOut) throw new UpstreamFailure('timeout', `no answer within ${timeoutMs} ms`);
      if (signal?.aborted) throw new UpstreamFailure('aborted', 'the client went away');
      const code = codeOf(e);
      throw new UpstreamFailure(UNSENT_CODES.has(code) ? 'unsent' : 'failed', code);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  close(): Promise<void> {
    return this.pool.destroy().catch(() => {});
  }
}

const isJsonRpcBody = (v: unknown) => !!v && typeof v === 'object';

/**
 * The node's answer, or a failure: 2xx with a JSON object or array (or nothing, when every call was a notification),
 * or a 400 whose body is still a JSON-RPC answer (some nodes send parse errors so). 429 and 5xx are failures, as is
 * any other status: a 401 means the operator's key was refused, which a client cannot fix.
 */
function answerOf(status: number, text: string, expectsNothing: boolean): unknown {
  if ((status < 200 || status > 299) && status !== 400) throw new UpstreamFailure('failed', `HTTP ${status}`);
  if (!text.trim()) {
    if (expectsNothing && status !== 400) return undefined;
    throw new UpstreamFailure('failed', `an empty answer (HTTP ${status})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UpstreamFailure('failed', `an answer that is not JSON (HTTP ${status})`);
  }
  if (!isJsonRpcBody(json)) throw new UpstreamFailure('failed', `an answer that is not a JSON-RPC object (HTTP ${status})`);
  return json;
}

/** One network's upstreams, in order of preference. */
export class NetworkUpstreams {
  readonly network: string;
  private readonly family: Family;
  private readonly upstreams: Upstream[];
  private readonly opts: UpstreamOptions;
  private readonly log: (message: string) => void;

  constructor(network: string, family: Family, urls: string[], opts: UpstreamOptions) {
    this.network = network;
    this.family = family;
    this.opts = opts;
    this.log = opts.log ?? ((m) => log.warn(m));
    this.upstreams = urls.map((url, i) => new Upstream(`${network}#${i + 1}`, url));
  }

  /** Upstreams in service now. */
  get available(): number {
    return this.upstreams.filter((u) => u.up).length;
  }

  /**
   * Sends the body to the first upstream in service, and on to the next while they fail, unless `sends` (a call that
   * changes state), which moves on only when the connection could not be opened. 503 when none is in service (or
   * none could be reached), 504 when the last failure was a timeout, 502 otherwise.
   */
  async forward(body: string | Buffer, opts: { sends: boolean; expectsNothing: boolean; signal?: AbortSignal }): Promise<UpstreamAnswer> {
    const candidates = this.upstreams.filter((u) => u.up);
    if (candidates.length === 0) throw unavailable(this.network);
    let last: UpstreamFailure | undefined;
    let reached = false;
    nodes: for (const u of candidates) {
      for (let attempt = 0; ; attempt++) {
        try {
          const { status, text } = await u.post(body, this.opts.timeoutMs, opts.signal);
          const json = answerOf(status, text, opts.expectsNothing);
          // A good answer is as good as a probe.
          u.nextProbeAt = Date.now() + this.opts.healthIntervalMs;
          return { text, json, upstream: u.label };
        } catch (e) {
          if (!(e instanceof UpstreamFailure)) throw e;
          if (e.kind === 'aborted') throw new ApiError('RPC_UPSTREAM_FAILED', 'The request was cancelled by the client');
          // A kept-alive connection the node closed just as the call went out: a read gets one more try on a fresh
          // connection before the node is taken for failed.
          if (!opts.sends && attempt === 0 && RESET_CODES.has(e.message)) continue;
          this.takeOut(u, e.message);
          last = e;
          if (e.kind !== 'unsent') reached = true;
          if (opts.sends && e.kind !== 'unsent') break nodes;
          break;
        }
      }
    }
    if (!reached) throw unavailable(this.network);
    if (last?.kind === 'timeout') throw new ApiError('RPC_UPSTREAM_TIMEOUT', `The ${this.network} node did not answer within ${this.opts.timeoutMs} ms`);
    throw new ApiError('RPC_UPSTREAM_FAILED', `The ${this.network} node failed (${last?.message ?? 'no answer'})`);
  }

  /** Probes the upstreams whose probe is due; resolves when those probes end. */
  async probeDue(now: number): Promise<void> {
    await Promise.all(this.upstreams.filter((u) => !u.probing && u.nextProbeAt <= now).map((u) => this.probe(u)));
  }

  private async probe(u: Upstream): Promise<void> {
    u.probing = true;
    try {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: HEALTH_METHOD[this.family], params: [] });
      const { status, text } = await u.post(body, Math.min(this.opts.timeoutMs, PROBE_TIMEOUT_MS));
      const json = answerOf(status, text, false) as { result?: unknown; error?: unknown };
      if (status !== 200 || json.result === undefined || (json.error !== undefined && json.error !== null)) {
        throw new UpstreamFailure('failed', `the health call ${HEALTH_METHOD[this.family]} failed`);
      }
      if (!u.up) this.log(`crypto-rpc: upstream ${u.label} answers its health check again; back in service`);
      u.up = true;
      u.failures = 0;
      u.nextProbeAt = Date.now() + this.opts.healthIntervalMs;
    } catch (e) {
      this.takeOut(u, e instanceof UpstreamFailure ? e.message : codeOf(e));
    } finally {
      u.probing = false;
    }
  }

  private takeOut(u: Upstream, reason: string): void {
    if (u.up) this.log(`crypto-rpc: upstream ${u.label} taken out of service (${reason}); probing it until it answers`);
    u.up = false;
    u.failures++;
    u.nextProbeAt = Date.now() + Math.min(this.opts.healthIntervalMs, FIRST_RETRY_MS * 2 ** Math.min(u.failures - 1, 16));
  }

  close(): Promise<void> {
    return Promise.all(this.upstreams.map((u) => u.close())).then(() => {});
  }
}

const unavailable = (network: string) => new ApiError('RPC_UPSTREAM_UNAVAILABLE', `No ${network} node is available right now; try again shortly`);

/** Every network's upstreams and the one timer that health-checks them. */
export class UpstreamSet {
  private readonly networks = new Map<string, NetworkUpstreams>();
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(entries: { network: string; family: Family; urls: string[] }[], opts: UpstreamOptions) {
    for (const e of entries) this.networks.set(e.network, new NetworkUpstreams(e.network, e.family, e.urls, opts));
    if (this.networks.size > 0) {
      this.timer = setInterval(() => this.tick(), Math.min(FIRST_RETRY_MS, opts.healthIntervalMs));
      this.timer.unref();
    }
  }

  get(network: string): NetworkUpstreams | undefined {
    return this.networks.get(network);
  }

  /** The networks that have upstreams, sorted. */
  names(): string[] {
    return [...this.networks.keys()].sort();
  }

  /** Starts the probes that are due; each upstream has at most one probe in flight, so a slow one holds up no other. */
  private tick(): void {
    const now = Date.now();
    for (const n of this.networks.values()) void n.probeDue(now);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await Promise.all([...this.networks.values()].map((n) => n.close()));
  }
}
