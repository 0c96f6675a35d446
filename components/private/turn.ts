// One private turn, all in the page: attest the worker (once per model and page), seal the history to its key, read
// the sealed answer as it streams and open each delta, then seal the question and the answer with the vault key and
// store them. The server relays and stores ciphertext only. A stale worker key (it restarted or rotated) is attested
// again and the turn retried once.
import { call, callStream } from '@/components/api/client.ts';
import type { PrivateAttestation } from '@/lib/wire.ts';
import { newSessionKey, openDelta, sealText, sealTo, type SessionKey } from './crypto.ts';

export interface PlainMessage {
  role: 'user' | 'assistant';
  content: string;
}

const attestations = new Map<string, PrivateAttestation>();
let session: SessionKey | undefined;

const hexNonce = () => Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, '0')).join('');

/** The worker's attested key for a model; a fresh nonce each time, and the echo checked. */
export async function attest(model: string, fresh = false): Promise<PrivateAttestation> {
  const known = attestations.get(model);
  if (known && !fresh) return known;
  const nonce = hexNonce();
  const a = await call('GET /private/attestation', { query: { model, nonce } });
  if (a.nonce !== nonce) throw new TurnError('nonceMismatch');
  attestations.set(model, a);
  return a;
}

class StaleKey extends Error {}

/** A turn refused here, by reason (the page words it in the user's language); `detail` is the server's own message. */
export class TurnError extends Error {
  readonly reason: 'nonceMismatch' | 'answerFailed' | 'unencrypted';
  readonly detail?: string;
  constructor(reason: TurnError['reason'], detail?: string) {
    super(detail ?? reason);
    this.reason = reason;
    this.detail = detail;
  }
}

/** Streams the sealed answer; `onText` gets the opened text so far. Returns the answer and its request id. */
async function stream(model: string, history: PlainMessage[], onText: (text: string) => void, signal: AbortSignal, fresh: boolean) {
  const a = await attest(model, fresh);
  session ??= newSessionKey();
  const s = session;
  const messages = await Promise.all(history.map(async (m) => ({ role: m.role, content: await sealTo(a.signingKey, s, m.content) })));
  const res = await callStream('POST /private/completions', { body: { model, clientKey: s.publicHex, modelKey: a.signingKey, messages }, signal });
  const requestId = res.headers.get('cf-ray');
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    pending += decoder.decode(value, { stream: true });
    let end = pending.indexOf('\n\n');
    while (end !== -1) {
      const event = pending.slice(0, end);
      pending = pending.slice(end + 2);
      end = pending.indexOf('\n\n');
      if (!event.startsWith('data: ') || event === 'data: [DONE]') continue;
      const chunk = JSON.parse(event.slice(6));
      if (chunk.error) {
        if (chunk.error.code === 'e2ee_attestation_stale') throw new StaleKey();
        throw new TurnError('answerFailed', chunk.error.message);
      }
      const sealed = chunk.choices?.[0]?.delta?.content;
      if (typeof sealed === 'string' && sealed) {
        // Every piece of the answer must come sealed: a plain one would mean something between us and the worker wrote it.
        if (!/^04[0-9a-f]{184,}$/i.test(sealed)) throw new TurnError('unencrypted');
        text += await openDelta(s, sealed);
        onText(text);
      }
    }
  }
  return { text, requestId };
}

/** Runs a turn and stores it; resolves with the answer's text. */
export async function privateTurn(opts: {
  chatId: string;
  model: string;
  vault: CryptoKey;
  history: PlainMessage[];
  question: string;
  onText: (text: string) => void;
  signal: AbortSignal;
}): Promise<string> {
  const history = [...opts.history, { role: 'user' as const, content: opts.question }];
  let answer: { text: string; requestId: string | null };
  try {
    answer = await stream(opts.model, history, opts.onText, opts.signal, false);
  } catch (e) {
    if (!(e instanceof StaleKey)) throw e;
    answer = await stream(opts.model, history, opts.onText, opts.signal, true);
  }
  await call('POST /private/chats/:id/messages', {
    params: { id: opts.chatId },
    body: {
      messages: [
        { role: 'user', content: await sealText(opts.vault, opts.question) },
        { role: 'assistant', content: await sealText(opts.vault, answer.text), requestId: answer.requestId },
      ],
    },
  });
  return answer.text;
}
