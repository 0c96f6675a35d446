// One E2EE chat in the worker: open every sealed field with the worker's key, run the model, seal each content and
// reasoning delta to the client's key with a fresh key, and produce the exact SSE bytes the client will read. The
// gateway forwards them unchanged, so the worker can sign sha256(request):sha256(response) for /tee/signature, and a
// trailer (an SSE comment the gateway strips) carries the signed token counts the gateway settles with.
import { createHash } from 'node:crypto';
import { ApiError } from '../../api/errors.ts';
import type { Engine, EngineMessage, EngineUsage } from '../../engines/text/types.ts';
import type { ModelEntry } from '../../models/schema.ts';
import { EnvelopeError, forgetKeys, looksSealed, open, parsePublicKey, seal } from '../envelope.ts';
import { e2eeEngineParams, MUST_SEAL, readE2eeRequest } from '../request.ts';
import { sha256Hex, signText } from '../signing.ts';
import type { WorkerKey, WorkerKeys } from './keys.ts';
import { type Receipt, TRAILER, usageText } from '../receipt.ts';

export interface SealedChatInput {
  requestId: string;
  modelId: string;
  clientKey: string;
  modelKey: string;
  /** The request body exactly as the client sent it. */
  body: Buffer;
  signal: AbortSignal;
}

export interface SealedChatDeps {
  keys: WorkerKeys;
  /** The E2EE models this worker serves, by id. */
  model(id: string): ModelEntry | undefined;
  engine(model: ModelEntry): Promise<Engine>;
  /** Keeps the response signature for /tee/signature. */
  remember(receipt: Receipt): void;
}

const event = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

/** A 4xx before any output, in the worker's JSON error body (the gateway answers it in its own). */
const bad = (message: string, param?: string) => new ApiError('INVALID_REQUEST', message, param ? { param } : undefined);

/** Opens the request's fields; a user or system text that is not sealed, or does not open, is refused. */
function openMessages(key: WorkerKey, messages: { role: string; content: unknown; tool_call_id?: string }[]): { opened: EngineMessage[]; sealed: string[] } {
  const sealed: string[] = [];
  const keys = new Map<string, Buffer>();
  const opened = messages.map((m, i): EngineMessage => {
    const text = m.content as string;
    let content = text;
    if (looksSealed(text)) {
      try {
        content = open(key.secretKey, text, keys);
      } catch (e) {
        throw bad(`Failed to decrypt field messages.${i}.content: ${e instanceof EnvelopeError ? e.message : 'invalid'}`, `messages.${i}.content`);
      }
      sealed.push(text);
    } else if (MUST_SEAL.has(m.role) && text.length > 0) {
      throw bad(`Encrypted field is not valid hex: messages.${i}.content (a ${m.role} message must be encrypted to the model key)`, `messages.${i}.content`);
    }
    return { role: m.role as EngineMessage['role'], content, ...(m.role === 'tool' && m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}) };
  });
  forgetKeys(keys);
  return { opened, sealed };
}

/**
 * The stream's items in batches: each batch is what had arrived by the time the one before was handled (the first
 * item at once, then whatever is ready without waiting for more input).
 */
async function* ready<T>(items: AsyncIterable<T>): AsyncGenerator<T[]> {
  const it = items[Symbol.asyncIterator]();
  let next = it.next();
  for (;;) {
    const first = await next;
    if (first.done) return;
    const batch = [first.value];
    let done = false;
    for (;;) {
      next = it.next();
      const turn = new Promise<null>((resolve) => setImmediate(resolve, null));
      const got = await Promise.race([next, turn]);
      if (got === null) break;
      if (got.done) {
        done = true;
        break;
      }
      batch.push(got.value);
    }
    yield batch;
    if (done) return;
  }
}

/**
 * The response, as SSE text pieces; a request refused before any output throws an ApiError instead. The last piece
 * is the trailer.
 */
export async function* sealedChat(deps: SealedChatDeps, input: SealedChatInput): AsyncGenerator<string> {
  const key = deps.keys.current();
  const id = `chatcmpl-${input.requestId}`;
  const created = Math.floor(Date.now() / 1000);
  // The response's hash is taken as it is written: the signature covers exactly the bytes the client receives.
  const responseHash = createHash('sha256');
  const emit = (text: string) => (responseHash.update(text), text);
  const trailer = async (usage: EngineUsage) => {
    const counts = { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens };
    const signature = await signText(key.secretKey, usageText(input.requestId, counts));
    return `${TRAILER}${JSON.stringify({ ...counts, address: key.address, signature })}\n\n`;
  };

  if (input.modelKey.toLowerCase() !== key.publicHex) {
    // Sealed to a key this worker no longer holds (it restarted, or rotated): the client must attest again.
    yield emit(
      event({
        error: {
          message: 'The E2EE session is stale: the model key changed. Fetch a new attestation and retry.',
          type: 'invalid_request_error',
          code: 'e2ee_attestation_stale',
        },
      }),
    );
    yield emit('data: [DONE]\n\n');
    yield await trailer({ prompt_tokens: 0, completion_tokens: 0 });
    return;
  }
  const client = parsePublicKey(input.clientKey);
  if (!client) throw bad('Invalid E2EE headers: the client public key is not an uncompressed secp256k1 point');
  const model = deps.model(input.modelId);
  if (!model) throw new ApiError('MODEL_NOT_FOUND', `This E2EE worker does not serve model ${input.modelId}`);
  let body: unknown;
  try {
    body = JSON.parse(input.body.toString('utf8'));
  } catch {
    throw bad('The request body is not JSON');
  }
  const req = readE2eeRequest(body);
  const params = e2eeEngineParams(req, model);
  const { opened, sealed } = openMessages(key, req.messages);
  if (!deps.keys.admit(key, sealed)) throw bad('This encrypted request was already answered: a replay is refused. Encrypt the messages again to resend them.');

  const engine = await deps.engine(model);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    emit(event({ id, object: 'chat.completion.chunk', created, model: model.id, choices: [{ index: 0, delta, finish_reason: finish }] }));
  let usage: EngineUsage | undefined;
  let deltas = 0;
  yield chunk({ role: 'assistant', content: '' });
  try {
    for await (const batch of ready(engine.stream({ requestId: input.requestId, model: model.id, messages: opened, params, signal: input.signal }))) {
      // What arrived together is sealed together: a key pair and an ECDH per delta are most of E2EE's cost.
      let content = '';
      let reasoning = '';
      let finish: string | null = null;
      for (const c of batch) {
        if (c.usage) usage = c.usage;
        const choice = c.choices[0];
        content += choice?.delta.content ?? '';
        reasoning += choice?.delta.reasoning_content ?? '';
        finish = choice?.finish_reason ?? finish;
      }
      const delta: Record<string, unknown> = {};
      if (content) delta.content = seal(client, content);
      if (reasoning) delta.reasoning_content = seal(client, reasoning);
      if (content || reasoning) {
        deltas++;
        yield chunk(delta);
      }
      if (finish) yield chunk({}, finish);
    }
  } catch (e) {
    if (input.signal.aborted) return;
    // After output began, a failure is in-band: the client keeps what came, and the error says why it stopped.
    yield emit(event({ error: { message: `The model failed while answering: ${(e as Error).message}`, type: 'server_error', code: 'inference_failed' } }));
  }
  const counted = usage ?? { prompt_tokens: 0, completion_tokens: deltas };
  if (req.stream_options?.include_usage) {
    const { prompt_tokens, completion_tokens } = counted;
    yield emit(
      event({
        id,
        object: 'chat.completion.chunk',
        created,
        model: model.id,
        choices: [],
        usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens },
      }),
    );
  }
  yield emit('data: [DONE]\n\n');
  const requestHash = sha256Hex(input.body);
  const responseDigest = responseHash.digest('hex');
  const text = `${requestHash}:${responseDigest}`;
  deps.remember({
    requestId: id,
    model: model.id,
    text,
    signature: await signText(key.secretKey, text),
    signing_address: key.address,
    request_hash: requestHash,
    response_hash: responseDigest,
    timestamp: Math.floor(Date.now() / 1000),
  });
  yield await trailer(counted);
}
