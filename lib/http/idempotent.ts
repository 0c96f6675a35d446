// Idempotency-Key on every billed POST of /api/v1 (routes declare `idempotent`), as payment APIs have it: the first
// request with a key runs and its answer is kept per account for 24 hours; a retry with the same key and the same
// request (method, path and body) gets that answer again, unbilled, with `Idempotent-Replayed: true`; another
// request under the key is a 422; a duplicate that arrives while the first runs waits for it. The claims are
// lib/billing/idempotency.ts, shared with the JSON-RPC proxy.
//
// A request with a key runs to its end even if its client goes away (the work was asked for once and is billed
// once), so the retry after a dropped connection gets the whole answer, streams included. What is kept: every
// answer that was delivered or charged, and refusals a retry would meet again (4xx). Not kept, so a retry runs
// afresh: the server's own failures (5xx, which charge nothing) and "try again later" (402 credit held, 409, 429).
import { createHash } from 'node:crypto';
import { ApiError, type ErrorCode, isApiError, toApiError } from '../api/errors.ts';
import type { HeaderMap } from '../api/headers.ts';
import { type Claim, IDEMPOTENCY_KEY } from '../billing/idempotency.ts';
import { log } from '../log.ts';
import { readBody, setPrereadBody } from './body.ts';
import type { RequestCtx } from './context.ts';
import { type Reply, sendReply } from './reply.ts';

/** What a kept answer holds, as JSON in the claim's row. */
type Kept =
  | { kind: 'json'; status: number; headers: HeaderMap; body: unknown }
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

/** The request as a hash: method, path, content type and body. A multipart boundary is the client's random choice per
 * attempt, so it is taken out of both. */
function requestHash(ctx: RequestCtx, body: Buffer): string {
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

/** The largest body any idempotent route reads (JSON up to LAGOON_MAX_BODY_BYTES; an audio upload may be larger). */
const prereadLimit = (ctx: RequestCtx) => Math.max(ctx.svc.config.maxBodyBytes, ctx.svc.config.audio.mediaMaxBytes + 64 * 1024);

/**
 * Runs an idempotent route: without an Idempotency-Key (or a caller's account) as any other; with one, through its
 * claim. `produce` runs the handler.
 */
export async function runIdempotent(ctx: RequestCtx, produce: () => Promise<Reply>): Promise<void> {
  const key = ctx.req.headers['idempotency-key'];
  const accountId = ctx.principal?.accountId;
  if (key === undefined || accountId === undefined) return sendReply(ctx, await produce());
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key)) {
    throw new ApiError('INVALID_REQUEST', 'Idempotency-Key must be 1 to 255 characters of A-Z, a-z, 0-9, _ and -', { param: 'Idempotency-Key' });
  }
  // The body is read here, once, to hash it; the handler then reads the same bytes.
  const body = await readBody(ctx.req, prereadLimit(ctx));
  setPrereadBody(ctx.req, body);
  const claim = await ctx.svc.idempotency.claim(accountId, key, requestHash(ctx, body), ctx.requestId);
  if (claim.kind === 'replay') return replay(ctx, JSON.parse(claim.answer) as Kept);
  ctx.detach();
  let reply: Reply;
  try {
    reply = await produce();
  } catch (e) {
    const err = toApiError(e);
    await settleClaim(ctx, claim, isApiError(e) && kept(err) ? errorKept(err) : null);
    throw e;
  }
  const recording = record(reply, ctx.extraHeaders, ctx.svc.config.idempotencyMaxBytes);
  try {
    await sendReply(ctx, recording.reply);
  } finally {
    await settleClaim(ctx, claim, await recording.done);
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
      return sendReply(ctx, { kind: 'json', status: k.status, body: k.body });
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
  /** The reply to send: the same, with its stream's items noted as they are made. */
  reply: Reply;
  /** What to keep, once the reply was sent and its stream (if any) ran to its end; null: keep nothing. */
  done: Promise<Kept | null>;
}

/** Notes what a reply sends, to keep it. A stream is run to its end even if the client stops reading. */
function record(r: Reply, headers: HeaderMap, maxBytes: number): Recording {
  const snapshot = () => ({ ...headers });
  const limited = (k: Extract<Kept, { kind: 'bytes' }>): Kept => (k.body.length > (maxBytes * 4) / 3 + 4 ? { kind: 'too-large', status: k.status } : k);
  switch (r.kind) {
    case 'json':
      return { reply: r, done: Promise.resolve(r.status < 500 ? limitedJson(r, snapshot(), maxBytes) : null) };
    case 'raw': {
      const body = r.body === undefined ? Buffer.alloc(0) : Buffer.from(r.body);
      const k = limited({ kind: 'bytes', status: r.status, headers: { ...snapshot(), ...r.headers }, body: body.toString('base64'), sse: false });
      return { reply: r, done: Promise.resolve(k) };
    }
    case 'error':
      return { reply: r, done: Promise.resolve(kept(r.err) ? { ...(errorKept(r.err) as Extract<Kept, { kind: 'error' }>), body: r.body } : null) };
    case 'chunks': {
      const t = drainingTee(r.chunks, (c) => Buffer.from(c));
      const done = t.done.then((parts) =>
        parts
          ? limited({ kind: 'bytes', status: 200, headers: { ...snapshot(), ...r.headers }, body: Buffer.concat(parts).toString('base64'), sse: false })
          : null,
      );
      return { reply: { ...r, chunks: t.items }, done };
    }
    case 'events': {
      const t = drainingTee(r.steps, (s) => Buffer.from(r.toText(s)));
      const done = t.done.then((parts) =>
        parts ? limited({ kind: 'bytes', status: 200, headers: snapshot(), body: Buffer.concat(parts).toString('base64'), sse: true }) : null,
      );
      return { reply: { ...r, steps: t.items }, done };
    }
    case 'relay': {
      const t = drainingTee(r.events, (e) => Buffer.from(e));
      const done = t.done.then((parts) =>
        parts ? limited({ kind: 'bytes', status: 200, headers: snapshot(), body: Buffer.concat(parts).toString('base64'), sse: true }) : null,
      );
      return { reply: { ...r, events: t.items }, done };
    }
    case 'file':
      // A stored file is fetched again by its own route; nothing to keep.
      return { reply: r, done: Promise.resolve(null) };
  }
}

function limitedJson(r: Extract<Reply, { kind: 'json' }>, headers: HeaderMap, maxBytes: number): Kept {
  const k: Kept = { kind: 'json', status: r.status, headers, body: r.body };
  return JSON.stringify(r.body).length > maxBytes ? { kind: 'too-large', status: r.status } : k;
}

/**
 * The items of `source` for the writer, each also noted; the source is read to its end even when the writer stops
 * (its client went away), so the work finishes, is billed once, and is kept whole. `done` is the notes, or null when
 * the source failed (nothing whole to keep).
 */
export function drainingTee<T>(source: AsyncIterable<T>, note: (item: T) => Buffer): { items: AsyncIterable<T>; done: Promise<Buffer[] | null> } {
  const parts: Buffer[] = [];
  const queue: T[] = [];
  let ended = false;
  let failure: unknown;
  let failed = false;
  let wake: (() => void) | undefined;
  let reading = true;
  const done = (async () => {
    try {
      for await (const item of source) {
        parts.push(note(item));
        if (reading) queue.push(item);
        wake?.();
      }
      return parts;
    } catch (e) {
      failed = true;
      failure = e;
      return null;
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
