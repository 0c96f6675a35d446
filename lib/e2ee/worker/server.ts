// The E2EE worker's HTTP face, for its gateway only (a bearer token it was started with): its key and attestation,
// one sealed chat at a time per request, and the receipts clients ask for. Bodies are never logged; plaintext exists
// only inside sealedChat, in this process.
import { timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { ApiError, toApiError } from '../../api/errors.ts';
import { attestationBody, NONCE_HEX, type QuoteProvider } from '../attestation.ts';
import { MAX_RECEIPTS, type Receipt } from '../receipt.ts';
import { type SealedChatDeps, sealedChat } from './chat.ts';

export interface WorkerServerOptions extends Omit<SealedChatDeps, 'remember'> {
  token: string;
  quote?: QuoteProvider;
  /** The largest request body accepted, in bytes. */
  maxBodyBytes: number;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
}

function authorized(req: IncomingMessage, token: string): boolean {
  const given = Buffer.from(req.headers.authorization ?? '');
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) throw new ApiError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`);
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

const header = (req: IncomingMessage, name: string): string => {
  const v = req.headers[name];
  return (Array.isArray(v) ? v[0] : v) ?? '';
};

export function createWorkerServer(opts: WorkerServerOptions): http.Server {
  const receipts = new Map<string, Receipt>();
  const remember = (r: Receipt) => {
    receipts.set(r.requestId, r);
    if (receipts.size > MAX_RECEIPTS) receipts.delete(receipts.keys().next().value as string);
  };
  const deps: SealedChatDeps = { ...opts, remember };

  async function chat(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const controller = new AbortController();
    res.on('close', () => controller.abort());
    const body = await readBody(req, opts.maxBodyBytes);
    const pieces = sealedChat(deps, {
      requestId: header(req, 'x-request-id'),
      modelId: header(req, 'x-model'),
      clientKey: header(req, 'x-client-pub-key'),
      modelKey: header(req, 'x-model-pub-key'),
      body,
      signal: controller.signal,
    });
    // A refusal comes before the first piece: it is answered as JSON, and the gateway releases its hold.
    const first = await pieces.next();
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
    for (let step = first; !step.done; step = await pieces.next()) {
      if (res.destroyed) break;
      if (!res.write(step.value)) await new Promise((r) => res.once('drain', r));
    }
    res.end();
  }

  return http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://worker');
    if (!authorized(req, opts.token)) return sendJson(res, 401, new ApiError('AUTHENTICATION_FAILED', 'This E2EE worker answers its gateway only').toBody());
    const run = async () => {
      if (req.method === 'GET' && url.pathname === '/v1/key') {
        const k = opts.keys.current();
        return sendJson(res, 200, { signing_key: k.publicHex, signing_address: k.address, created_at: k.createdAt });
      }
      if (req.method === 'GET' && url.pathname === '/v1/attestation') {
        const nonce = url.searchParams.get('nonce') ?? '';
        if (!NONCE_HEX.test(nonce)) throw new ApiError('INVALID_REQUEST', 'Nonce must be exactly 32 bytes (64 hex characters)', { param: 'nonce' });
        return sendJson(res, 200, await attestationBody(opts.keys.current(), url.searchParams.get('model') ?? '', nonce, opts.quote));
      }
      if (req.method === 'GET' && url.pathname === '/v1/receipt') {
        const r = receipts.get(url.searchParams.get('request_id') ?? '');
        return r ? sendJson(res, 200, r) : sendJson(res, 404, new ApiError('NOT_FOUND', 'No signature for this request on this worker').toBody());
      }
      if (req.method === 'POST' && url.pathname === '/v1/chat') return chat(req, res);
      sendJson(res, 404, new ApiError('NOT_FOUND').toBody());
    };
    run().catch((e) => {
      const err = toApiError(e);
      if (!res.headersSent) sendJson(res, err.status, err.toBody());
      else res.destroy();
    });
  });
}
