// Tokenizing a rendered prompt without holding the event loop: node-llama-cpp's tokenizer is synchronous native code
// (about 0.2 s per MB here), so a long text is tokenized in slices cut at the start of a whitespace run, yielding to
// the loop between slices, and counting can stop once it passes a limit (a prompt beyond the context is refused
// whatever its exact length). Slices after the first are tokenized with "trimLeadingSpace", as node-llama-cpp's own
// LlamaText.tokenize does for the text after a special token, so the result matches a whole-text tokenization but
// for the odd merge across a slice boundary. Short texts take the plain synchronous path, exactly as before.
import { type LlamaText, SpecialToken, SpecialTokensText, type Token, type Tokenizer } from 'node-llama-cpp';

/** Characters tokenized between two yields to the event loop (a few ms of native work). */
export const TOKENIZE_SLICE_CHARS = 32 * 1024;

export interface TokenizeResult {
  tokens: Token[];
  /** False when tokenizing stopped early, past `limit`: `tokens` then holds more than `limit` tokens, not all. */
  complete: boolean;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/** Where to end a slice starting at `from`: the start of the last whitespace run in the window, else its end. */
function sliceEnd(text: string, from: number): number {
  const max = from + TOKENIZE_SLICE_CHARS;
  if (max >= text.length) return text.length;
  for (let i = max; i > from + TOKENIZE_SLICE_CHARS / 2; i--) {
    if (isSpace(text.charCodeAt(i)) && !isSpace(text.charCodeAt(i - 1))) return i;
  }
  // No whitespace near the end (one long word): cut anywhere but inside a surrogate pair.
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

/**
 * `text.tokenize(tokenizer)`, yielding to the event loop every TOKENIZE_SLICE_CHARS characters when the text is long.
 * With `limit`, stops once more than `limit` tokens were produced. Throws `signal.reason` when the signal aborts.
 */
export async function tokenizeYielding(text: LlamaText, tokenizer: Tokenizer, opts: { limit?: number; signal?: AbortSignal } = {}): Promise<TokenizeResult> {
  let length = 0;
  for (const v of text.values) length += typeof v === 'string' ? v.length : v instanceof SpecialTokensText ? v.value.length : 0;
  if (length <= TOKENIZE_SLICE_CHARS) return { tokens: text.tokenize(tokenizer), complete: true };

  const limit = opts.limit ?? Infinity;
  const tokens: Token[] = [];
  const push = (more: readonly Token[]) => {
    for (const t of more) tokens.push(t);
  };
  // The same walk as LlamaText.tokenize: plain text is gathered up to the next special token, then tokenized.
  const flush = async (value: string, special: boolean): Promise<boolean> => {
    for (let from = 0; from < value.length; ) {
      const end = sliceEnd(value, from);
      const trim = tokens.length > 0 || from > 0 ? 'trimLeadingSpace' : undefined;
      push(tokenizer(value.slice(from, end), special, trim));
      from = end;
      if (tokens.length > limit) return false;
      if (from < value.length) {
        await yieldToLoop();
        opts.signal?.throwIfAborted();
      }
    }
    return true;
  };
  let pending = '';
  for (const value of text.values) {
    if (value instanceof SpecialToken || value instanceof SpecialTokensText) {
      if (pending && !(await flush(pending, false))) return { tokens, complete: false };
      pending = '';
      if (value instanceof SpecialToken) push(value.tokenize(tokenizer));
      else if (!(await flush(value.value, true))) return { tokens, complete: false };
      if (tokens.length > limit) return { tokens, complete: false };
    } else pending += value;
  }
  if (pending && !(await flush(pending, false))) return { tokens, complete: false };
  return { tokens, complete: true };
}
