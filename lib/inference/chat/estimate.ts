// Prompt-size estimate for the credit hold when the engine cannot count tokens exactly. It errs high (about three
// bytes a token, plus per-message framing and a flat cost per image), since a hold only has to cover the cost.
import type { EngineMessage } from '../types.ts';

const IMAGE_TOKENS = 1_500;

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
