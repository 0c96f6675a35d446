// Prices are per million tokens, so a token count times the price is already micro-units.
import type { ModelEntry } from '../models/schema.ts';
import type { Amount } from './money.ts';

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

function priced(m: ModelEntry, u: TokenUsage, currency: 'usd' | 'diem'): number {
  const p = m.pricing;
  const input = currency === 'usd' ? p.input_usd : p.input_diem;
  const output = currency === 'usd' ? p.output_usd : p.output_diem;
  const cachedPrice = (currency === 'usd' ? p.cached_input_usd : p.cached_input_diem ?? p.cached_input_usd) ?? input;
  const cached = Math.min(u.cachedTokens, u.promptTokens);
  return (u.promptTokens - cached) * input + cached * cachedPrice + u.completionTokens * output;
}

/** The cost of a finished request (every choice's completion tokens are in completionTokens). */
export function costOf(m: ModelEntry, u: TokenUsage): Amount {
  return { usd: Math.round(priced(m, u, 'usd')), diem: Math.round(priced(m, u, 'diem')) };
}

/** The worst case of a request not yet run: its whole prompt uncached and every choice at max_tokens. */
export function estimateOf(m: ModelEntry, promptTokens: number, maxTokens: number, n: number): Amount {
  const u = { promptTokens, completionTokens: maxTokens * n, cachedTokens: 0 };
  return { usd: Math.ceil(priced(m, u, 'usd')), diem: Math.ceil(priced(m, u, 'diem')) };
}
