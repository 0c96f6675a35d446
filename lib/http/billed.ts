// The billed POSTs of /api/v1 (routes declare `idempotent`) run here, for two things:
//
// Receipts. The request's body and the answer's body (as the client decodes it: JSON text, bytes, or a stream's SSE
// text) are hashed as they pass, and the hashes are kept with the request id once the answer has left, for its signed
// receipt (lib/billing/receipts.ts).
//
// Idempotency-Key, as payment APIs have it: the first request with a key runs and its answer is kept per account for
// 24 hours; a retry with the same key and the same request (method, path and body) gets that answer again, unbilled,
// with `Idempotent-Replayed: true`; another request under the key is a 422; a duplicate that arrives while the first
// runs waits for it. The claims are lib/billing/idempotency.ts, shared with the JSON-RPC proxy. A request with a key
// runs to its end even if its client goes away (the work was asked for once and is billed once), so the retry after a
// dropped connection gets the whole answer, streams included. What is kept: every answer that was delivered or
// charged, and refusals a retry would meet again (4xx). Not kept, so a retry runs afresh: the server's own failures
// (5xx, which charge nothing) and "try again later" (402 credit held, 409, 429).
import { createHash, type Hash, hash } from 'node:crypto';
import { ApiError, type ErrorCode, isApiError, toApiError } from '../api/errors.ts';
import type { HeaderMap } from '../api/headers.ts';
import { type Claim, IDEMPOTENCY_KEY } from '../billing/idempotency.ts';
import { log } from '../log.ts';
import { isQuote, mayReplay } from '../billing/payment-gate.ts';
import { readBody, setPrereadBody } from './body.ts';
import type { RequestCtx } from './context.ts';
import { type Reply, sendReply } from './reply.ts';

/** What a kept answer holds, as JSON in the claim's row. */
type Kept =
  | { kind: 'json'; status: number; headers: HeaderMap; text: string }
  /** Bytes (base64): a raw reply, or a stream's bytes as they were written (SSE text, speech). */
  | { kind: 'bytes'; status: number; headers: HeaderMap; body: string; sse: boolean }
  | { kind: 'error'; code: ErrorCode; message: string; extra?: Record<string, unknown>; headers?: Record<string, string>; body?: Record<string, unknown> }
  /** Delivered and charged, but larger than LAGOON_IDEMPOTENCY_MAX_BYTES: a retry hears that, not a second run. */
  | { kind: 'too-large'; status: number };

const REPLAYED = 'Idempotent-Replayed';

/** Refusals that say "try again": keeping them would turn the retry they invite into the same refusal. */
function kept(e: ApiError): boolean {
  if (e.status >= 500 || e.status === 409 || e.status === 429 || e.status === 408) return false;
  return !(e.status === 402 && e.headers?.['retry-after'] !== undefined) && e.code !== 'CREDIT_HELD';
}

/**
 * The request as a hash for its Idempotency-Key: method, path, content type and body. A multipart boundary is the
 * client's random choice per attempt, so it is taken out of both.
 */
function claimHash(ctx: RequestCtx, body: Buffer): string {
  const type = String(ctx.req.headers['content-type'] ?? '');
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  const h = createHash('sha256').update(`${ctx.req.method} ${ctx.url.pathname}\n`);
  if (!boundary) return h.update(`${type}\n`).update(body).digest('hex');
  const text = body.toString('latin1').split(boundary).join('');
  return h
    .update(`${type.replace(boundary, '')}\n`)
    .update(text, 'latin1')
    .digest('hex');
}

/** The largest body any billed route reads (JSON up to LAGOON_MAX_BODY_BYTES; an audio upload may be larger). */
const prereadLimit = (ctx: RequestCtx) => Math.max(ctx.svc.config.maxBodyBytes, ctx.svc.config.audio.mediaMaxBytes + 64 * 1024);

/** Runs a billed route: `produce` runs the handler. */
export async function runBilled(ctx: RequestCtx, produce: () => Promise<Reply>): Promise<void> {
  const key = ctx.req.headers['idempotency-key'];
  // A request not yet paid for (x402 per request, quoted with a 402) belongs to no account: nothing is kept for it.
  const accountId = ctx.principal && !isQuote(ctx.principal) ? ctx.principal.accountId : undefined;
  if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))) {
    throw new ApiError('INVALID_REQUEST', 'Idempotency-Key must be 1 to 255 characters of A-Z, a-z, 0-9, _ and -', { param: 'Idempotency-Key' });
  }
  // The body is read here, once, to hash it; the handler then reads the same bytes.
  const body = await readBody(ctx.req, prereadLimit(ctx));
  setPrereadBody(ctx.req, body);
  // One-shot hashes (crypto.hash) cost a third of a Hash object's for bodies this size.
  const requestSha256 = hash('sha256', body);
  let claim: Extract<Claim, { kind: 'owner' }> | undefined;
  if (key !== undefined && accountId !== undefined) {
    const c = await ctx.svc.idempotency.claim(accountId, key, claimHash(ctx, body), ctx.requestId);
    if (c.kind === 'replay') {
      // A spent x402 payment presented again replays only the answer it paid for.
      if (ctx.principal && !mayReplay(ctx.principal, c.owner)) throw new ApiError('PAYMENT_ALREADY_CREDITED');
      return replay(ctx, JSON.parse(c.answer) as Kept);
    }
    claim = c;
    ctx.detach();
  }
  let reply: Reply;
  try {
    reply = await produce();
  } catch (e) {
    const err = toApiError(e);
    if (claim) await settleClaim(ctx, claim, isApiError(e) && kept(err) ? errorKept(err) : null);
    throw e;
  }
  const recording = record(reply, ctx.extraHeaders, claim ? ctx.svc.config.idempotencyMaxBytes : 0);
  try {
    await sendReply(ctx, recording.reply);
  } finally {
    // A writer that failed before reading its stream leaves it unread: nothing whole was answered.
    recording.writerDone();
    const { kept: answer, sha256 } = await recording.done;
    if (claim) await settleClaim(ctx, claim, answer);
    if (accountId !== undefined && sha256) ctx.svc.receiptHashes.add({ requestId: ctx.requestId, accountId, requestSha256, responseSha256: sha256 });
  }
}

async function settleClaim(ctx: RequestCtx, claim: Extract<Claim, { kind: 'owner' }>, answer: Kept | null): Promise<void> {
  try {
    if (answer) await claim.complete(JSON.stringify(answer));
    else await claim.abandon();
  } catch (err) {
    // A claim left pending is taken over once its heartbeat stops: safer than losing a kept answer silently.
    log.error({ err, requestId: ctx.requestId }, 'could not settle an Idempotency-Key claim');
  }
}

const errorKept = (e: ApiError): Kept => ({ kind: 'error', code: e.code, message: e.message, extra: e.extra, headers: e.headers });

async function replay(ctx: RequestCtx, k: Kept): Promise<void> {
  ctx.extraHeaders[REPLAYED] = 'true';
  switch (k.kind) {
    case 'json':
      Object.assign(ctx.extraHeaders, k.headers, { [REPLAYED]: 'true' });
      return sendReply(ctx, { kind: 'json', status: k.status, body: undefined, text: k.text });
    case 'bytes': {
      Object.assign(ctx.extraHeaders, k.headers, { [REPLAYED]: 'true' });
      const bytes = Buffer.from(k.body, 'base64');
      if (k.sse) return sendReply(ctx, { kind: 'relay', events: once(bytes.toString('utf8')) });
      return sendReply(ctx, { kind: 'raw', status: k.status, headers: { 'content-length': String(bytes.length) }, body: bytes });
    }
    case 'error': {
      const err = new ApiError(k.code, k.message, k.extra, k.headers);
      if (k.body) return sendReply(ctx, { kind: 'error', err, body: k.body });
      throw err;
    }
    case 'too-large':
      throw new ApiError(
        'IDEMPOTENCY_ANSWER_NOT_KEPT',
        `The first request with this Idempotency-Key was answered (status ${k.status}) and charged once; its answer was larger than this server keeps for replays`,
      );
  }
}

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}

interface Recording {
  /** The reply to send: the same, with what it sends hashed (and kept, under a key) as it is made. */
  reply: Reply;
  /**
   * Once the reply was sent and its stream (if any) ran to its end: its body's hash (null: nothing whole was answered)
   * and, when `keepBytes` allowed it, what to keep for replays.
   */
  done: Promise<{ kept: Kept | null; sha256: string | null }>;
  /** The writer has returned: a stream it never read is settled as not answered. */
  writerDone(): void;
}

/**
 * Hashes what a reply sends and, when `keepBytes` > 0 (an Idempotency-Key), keeps it up to that size. Under a key a
 * stream is run to its end even if the client stops reading.
 */
function record(r: Reply, headers: HeaderMap, keepBytes: number): Recording {
  const snapshot = () => ({ ...headers });
  const whole = (reply: Reply, done: Recording['done']): Recording => ({ reply, done, writerDone: () => undefined });
  const keep = keepBytes > 0;
  const fits = (n: number) => n <= keepBytes;
  switch (r.kind) {
    case 'json': {
      if (r.bytes !== undefined) {
        // Written and hashed in the JSON thread: only an answer small enough to keep is decoded here.
        const sha256 = r.sha256 ?? hash('sha256', r.bytes);
        const k: Kept | null =
          !keep || r.status >= 500
            ? null
            : fits(r.bytes.byteLength)
              ? {
                  kind: 'json',
                  status: r.status,
                  headers: snapshot(),
                  text: Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength).toString('utf8'),
                }
              : { kind: 'too-large', status: r.status };
        return whole(r, Promise.resolve({ kept: k, sha256 }));
      }
      const text = r.text ?? JSON.stringify(r.body);
      const sha256 = hash('sha256', text);
      const k: Kept | null =
        !keep || r.status >= 500
          ? null
          : fits(text.length)
            ? { kind: 'json', status: r.status, headers: snapshot(), text }
            : { kind: 'too-large', status: r.status };
      return whole({ ...r, text }, Promise.resolve({ kept: k, sha256 }));
    }
    case 'raw': {
      const body = r.body === undefined ? Buffer.alloc(0) : Buffer.from(r.body);
      const sha256 = hash('sha256', body);
      const k: Kept | null = !keep
        ? null
        : fits(body.length)
          ? { kind: 'bytes', status: r.status, headers: { ...snapshot(), ...r.headers }, body: body.toString('base64'), sse: false }
          : { kind: 'too-large', status: r.status };
      return whole(r, Promise.resolve({ kept: k, sha256 }));
    }
    case 'error':
      return whole(
        r,
        Promise.resolve({ kept: keep && kept(r.err) ? { ...(errorKept(r.err) as Extract<Kept, { kind: 'error' }>), body: r.body } : null, sha256: null }),
      );
    case 'chunks': {
      const t = tap(r.chunks, same, same, keep);
      return { reply: { ...r, chunks: t.items }, done: streamed(t, keepBytes, { ...snapshot(), ...r.headers }, false), writerDone: t.writerDone };
    }
    case 'events': {
      // Each step is made into its SSE text once, here: the hash takes that text and the writer sends it.
      const t = tap(r.steps, (step): Written => ({ step, text: r.toText(step) }), textOf, keep);
      const isOutput = (w: unknown) => r.isOutput((w as Written).step);
      return {
        reply: { ...r, steps: t.items, toText: textOf as (w: unknown) => string, isOutput },
        done: streamed(t, keepBytes, snapshot(), true),
        writerDone: t.writerDone,
      };
    }
    case 'relay': {
      const t = tap(r.events, same, same, keep);
      return { reply: { ...r, events: t.items }, done: streamed(t, keepBytes, snapshot(), true), writerDone: t.writerDone };
    }
    case 'file':
      // A stored file is fetched again by its own route; nothing to keep or hash.
      return whole(r, Promise.resolve({ kept: null, sha256: null }));
  }
}

/** A stream step with its SSE text, made once for both the hash and the writer. */
interface Written {
  step: unknown;
  text: string;
}
const textOf = (w: Written) => w.text;
const same = <T>(x: T) => x;

async function streamed(t: Tapped<unknown>, keepBytes: number, headers: HeaderMap, sse: boolean): Promise<{ kept: Kept | null; sha256: string | null }> {
  const out = await t.done;
  if (!out) return { kept: null, sha256: null };
  if (keepBytes <= 0) return { kept: null, sha256: out.sha256 };
  const bytes = Buffer.concat(out.parts);
  const k: Kept = bytes.length <= keepBytes ? { kind: 'bytes', status: 200, headers, body: bytes.toString('base64'), sse } : { kind: 'too-large', status: 200 };
  return { kept: k, sha256: out.sha256 };
}

interface Tapped<T> {
  items: AsyncIterable<T>;
  /** The stream's hash and (when kept) its bytes once it ended; null when it failed (nothing whole to keep). */
  done: Promise<{ sha256: string; parts: Buffer[] } | null>;
  writerDone(): void;
}

/**
 * The items of `source` for the writer (each made by `make`), each hashed (and kept, with `drain`) as it passes:
 * `body` is what the client receives of it, text (hashed as its UTF-8 bytes, without a Buffer of its own) or bytes.
 * Without `drain` it is a plain pass-through: a writer that stops early stops the source, as before. With `drain` (an
 * Idempotency-Key) the source is read to its end even when the writer stops (its client went away), so the work
 * finishes, is billed once, and is kept whole.
 */
function tap<S, T>(source: AsyncIterable<S>, make: (item: S) => T, body: (item: T) => string | Uint8Array, drain: boolean): Tapped<T> {
  const hash: Hash = createHash('sha256');
  const parts: Buffer[] = [];
  const note = (item: T) => {
    const b = body(item);
    hash.update(b);
    if (drain) parts.push(Buffer.from(b));
  };
  if (!drain) {
    let resolve!: (v: { sha256: string; parts: Buffer[] } | null) => void;
    const done = new Promise<{ sha256: string; parts: Buffer[] } | null>((r) => (resolve = r));
    async function* items() {
      let whole = false;
      try {
        for await (const raw of source) {
          const item = make(raw);
          note(item);
          yield item;
        }
        whole = true;
      } finally {
        resolve(whole ? { sha256: hash.digest('hex'), parts } : null);
      }
    }
    return { items: items(), done, writerDone: () => resolve(null) };
  }
  const t = drainingTee(source, make, note);
  return { items: t.items, done: t.done.then((ok) => (ok ? { sha256: hash.digest('hex'), parts } : null)), writerDone: () => undefined };
}

/**
 * The items of `source` for the writer, each noted; the source is read to its end even when the writer stops (its
 * client went away). `done` is true once it ended, false when it failed.
 */
export function drainingTee<S, T>(
  source: AsyncIterable<S>,
  make: (item: S) => T,
  note: (item: T) => void,
): { items: AsyncIterable<T>; done: Promise<boolean> } {
  const queue: T[] = [];
  let ended = false;
  let failure: unknown;
  let failed = false;
  let wake: (() => void) | undefined;
  let reading = true;
  const done = (async () => {
    try {
      for await (const raw of source) {
        const item = make(raw);
        note(item);
        if (reading) queue.push(item);
        wake?.();
      }
      return true;
    } catch (e) {
      failed = true;
      failure = e;
      return false;
    } finally {
      ended = true;
      wake?.();
    }
  })();
  const items: AsyncIterable<T> = {
    [Symbol.asyncIterator]: () => ({
      async next(): Promise<IteratorResult<T>> {
        for (;;) {
          if (queue.length) return { value: queue.shift() as T, done: false };
          if (failed) throw failure;
          if (ended) return { value: undefined, done: true };
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      },
      async return(): Promise<IteratorResult<T>> {
        reading = false;
        queue.length = 0;
        return { value: undefined, done: true };
      },
    }),
  };
  return { items, done };
}
