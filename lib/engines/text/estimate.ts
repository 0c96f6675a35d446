// Prompt-size estimate for the credit hold when the engine cannot count tokens exactly. It errs high (about three
// bytes a token, plus per-message framing and a flat cost per image), since a hold only has to cover the cost.
import type { EngineMessage } from './types.ts';

const IMAGE_TOKENS = 1_500;

/**
 * The most UTF-8 bytes one token can stand for, in any vocabulary we serve: the longest entries of the large BPE
 * vocabularies are runs of spaces, dashes or `=` of up to 128 bytes; twice that leaves room. A prompt of B bytes is
 * therefore at least B / MAX_BYTES_PER_TOKEN tokens, a bound that costs one pass over the bytes.
 */
export const MAX_BYTES_PER_TOKEN = 256;

/** Prompts up to this many bytes of text are counted exactly at once; above it, the cheap checks run first. */
export const CHEAP_CHECKS_ABOVE_BYTES = 64 * 1024;

/** The UTF-8 bytes of the messages' text (content, text parts, tool calls); images and other parts count nothing. */
export function promptBytes(messages: EngineMessage[]): number {
  let bytes = 0;
  for (const m of messages) {
    if (typeof m.content === 'string') bytes += Buffer.byteLength(m.content);
    else if (Array.isArray(m.content)) {
      for (const part of m.content) if (part.type === 'text') bytes += Buffer.byteLength(String(part.text ?? ''));
    }
    if (m.tool_calls) bytes += Buffer.byteLength(JSON.stringify(m.tool_calls));
  }
  return bytes;
}

/** A lower bound on the prompt's tokens in any tokenizer: what the context and credit checks may refuse on unseen. */
export const minPromptTokens = (bytes: number): number => Math.floor(bytes / MAX_BYTES_PER_TOKEN);

export function estimatePromptTokens(messages: EngineMessage[]): number {
  let bytes = 0;
  let extra = 0;
  for (const m of messages) {
    extra += 8;
    if (typeof m.content === 'string') bytes += Buffer.byteLength(m.content);
    else if (Array.isArray(m.content)) {
      for (const part of m.content) {
        if (part.type === 'text') bytes += Buffer.byteLength(String(part.text ?? ''));
        else extra += IMAGE_TOKENS;
      }
    }
    if (m.tool_calls) bytes += Buffer.byteLength(JSON.stringify(m.tool_calls));
  }
  return Math.ceil(bytes / 3) + extra;
}

/** Completion tokens of text we relayed, when the engine never reported usage (about four bytes a token). */
export const estimateTextTokens = (text: string): number => (text ? Math.max(1, Math.ceil(Buffer.byteLength(text) / 4)) : 0);
