// The gateway's side of the E2EE worker: where it is (LAGOON_E2EE_WORKER_URL, or a child this server starts on first
// use), and the four things the gateway asks of it. The gateway holds no key and forwards ciphertext only; a child
// that exits is started again on the next use, with a new key (clients of the old one are told to attest again).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ApiError } from '../api/errors.ts';
import type { E2eeConfig } from '../config.ts';
import { log } from '../log.ts';
import type { Receipt } from './receipt.ts';
import type { SealedChatInput } from './worker/chat.ts';

const WORKER_MAIN = fileURLToPath(new URL('./worker/main.ts', import.meta.url));
/** How long a child worker may take to listen (it loads the catalogue; engines start on first use). */
const START_TIMEOUT_MS = 30_000;

interface Endpoint {
  url: string;
  token: string;
}

/** What the gateway forwards: the worker's own input (lib/e2ee/worker/chat.ts), sent over HTTP. */
export type SealedChatCall = SealedChatInput;

const unavailable = (why: string) => new ApiError('ENGINE_DOWN', `End-to-end encryption is unavailable: ${why}`);

export class E2eeWorkerLink {
  private readonly config: E2eeConfig;
  private endpoint: Promise<Endpoint> | undefined;
  private child: ChildProcess | undefined;
  private closed = false;

  constructor(config: E2eeConfig) {
    this.config = config;
  }

  /** The worker's current public key (hex) and address. */
  async key(): Promise<{ signing_key: string; signing_address: string }> {
    return (await this.json('/v1/key')) as { signing_key: string; signing_address: string };
  }

  attestation(model: string, nonce: string): Promise<Record<string, unknown>> {
    return this.json(`/v1/attestation?${new URLSearchParams({ model, nonce })}`);
  }

  /** The signed receipt of a completion (`chatcmpl-…`), or undefined when the worker has none. */
  async receipt(completionId: string): Promise<Receipt | undefined> {
    const res = await this.fetch(`/v1/receipt?${new URLSearchParams({ request_id: completionId })}`);
    if (res.status === 404) return undefined;
    return (await this.read(res)) as unknown as Receipt;
  }

  /** Starts a sealed chat: the worker's SSE response, or the ApiError it refused the request with. */
  async chat(call: SealedChatCall): Promise<ReadableStream<Uint8Array>> {
    const res = await this.fetch('/v1/chat', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-request-id': call.requestId,
        'x-model': call.modelId,
        'x-client-pub-key': call.clientKey,
        'x-model-pub-key': call.modelKey,
      },
      body: new Uint8Array(call.body),
      signal: call.signal,
    });
    if (res.status !== 200 || !res.body) throw await this.refusal(res);
    return res.body;
  }

  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000).unref())]);
    }
  }

  private async json(path: string): Promise<Record<string, unknown>> {
    return this.read(await this.fetch(path));
  }

  private async read(res: Response): Promise<Record<string, unknown>> {
    if (!res.ok) throw await this.refusal(res);
    return (await res.json()) as Record<string, unknown>;
  }

  /** The worker's error body, as our ApiError (its codes are ours: it runs this code base). */
  private async refusal(res: Response): Promise<ApiError> {
    const body = (await res.json().catch(() => ({}))) as { error?: string; code?: string; param?: string };
    if (res.status >= 500 || !body.code) return unavailable(`the worker answered HTTP ${res.status}${body.error ? `: ${body.error}` : ''}`);
    return new ApiError(body.code as ConstructorParameters<typeof ApiError>[0], body.error, body.param ? { param: body.param } : undefined);
  }

  private async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const { url, token } = await this.where();
    try {
      return await fetch(url + path, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` } });
    } catch (e) {
      if (init.signal?.aborted) throw e;
      // The child died: the next call starts a new one.
      if (!this.config.workerUrl) this.endpoint = undefined;
      throw unavailable(`the worker cannot be reached (${(e as Error).message})`);
    }
  }

  private where(): Promise<Endpoint> {
    if (this.closed) return Promise.reject(unavailable('the server is stopping'));
    if (this.config.workerUrl) return Promise.resolve({ url: this.config.workerUrl.replace(/\/+$/, ''), token: this.config.workerToken ?? '' });
    if (!this.endpoint) {
      this.endpoint = this.startChild();
      this.endpoint.catch(() => (this.endpoint = undefined));
    }
    return this.endpoint;
  }

  private startChild(): Promise<Endpoint> {
    const token = randomBytes(32).toString('hex');
    const child = spawn(process.execPath, [WORKER_MAIN], {
      env: {
        ...this.config.environment,
        LAGOON_E2EE_WORKER_TOKEN: token,
        LAGOON_E2EE_WORKER_HOST: '127.0.0.1',
        LAGOON_E2EE_WORKER_PORT: '0',
      } as unknown as NodeJS.ProcessEnv,
      // The IPC channel is the worker's tie to this process: when it goes, the worker stops.
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    this.child = child;
    child.on('exit', (code, signal) => {
      if (this.child === child) {
        this.child = undefined;
        this.endpoint = undefined;
        if (!this.closed) log.warn({ event: 'e2ee' }, `E2EE worker exited (${signal ?? code}); the next E2EE request starts a new one`);
      }
    });
    return new Promise<Endpoint>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error('it did not start listening in time')), START_TIMEOUT_MS);
      const lines = createInterface({ input: child.stdout! });
      const fail = (e: Error) => {
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(unavailable(`the worker did not start: ${e.message}`));
      };
      lines.once('line', (line) => {
        clearTimeout(timer);
        // The worker's own log lines follow on its stdout: they join this process's (read, or the pipe would fill).
        lines.on('line', (l) => process.stdout.write(`${l}\n`));
        try {
          const { port } = JSON.parse(line) as { port: number };
          log.info({ event: 'e2ee' }, `E2EE worker ${child.pid} listening on 127.0.0.1:${port}`);
          resolve({ url: `http://127.0.0.1:${port}`, token });
        } catch {
          fail(new Error(`unexpected output: ${line.slice(0, 200)}`));
        }
      });
      child.once('exit', (code) => fail(new Error(`it exited (${code})`)));
      child.once('error', fail);
    });
  }
}
