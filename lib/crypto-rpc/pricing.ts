// What a call costs in credits, and credits in money. A call costs its network's base credits times its method's tier;
// a call the node answers with a JSON-RPC error costs the flat error credits instead; a batch costs the sum. The hold
// covers every call at the dearer of the two, so the settlement (what the answers turned out to be) never exceeds it.
import type { UnitPrices } from '../billing/pricing.ts';
import type { RpcItem } from './request.ts';

const FREE = { usd: 0, diem: 0 };

/** Micro-units per credit in both currencies (1 DIEM buys 1 USD of service), as the metered call prices units. */
export function creditPrices(creditPriceUsd: number): UnitPrices {
  const micros = Number((creditPriceUsd * 1_000_000).toFixed(6));
  return { input: FREE, cachedInput: FREE, output: FREE, rpcCredit: { usd: micros, diem: micros } };
}

/** The USD value of credits to 8 decimals (the x-…-rpc-cost-usd header). */
export const creditsCostUsd = (credits: number, creditPriceUsd: number): string => (credits * creditPriceUsd).toFixed(8);

/** The most a batch can cost: each call at its own credits or the error credits, whichever is more. */
export const worstCase = (credits: number[], errorCredits: number): number => credits.reduce((n, c) => n + Math.max(c, errorCredits), 0);

export interface ItemOutcome {
  method: string;
  credits: number;
  error: boolean;
}

interface AnswerShape {
  id?: unknown;
  error?: unknown;
}

const isAnswer = (v: unknown): v is AnswerShape => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * What each call cost, given the node's answer (an object, an array of objects, or nothing for notifications).
 * Answers are matched to calls by id; an error answer without a usable id (a node that refused the whole batch, or a
 * call it could not parse) is matched to the calls still unanswered, in order. A call that got an error costs the
 * error credits; a notification (no id, so no answer) costs its credits, since the node ran it; a call the node
 * left unanswered costs the error credits.
 */
export function outcomes(items: RpcItem[], credits: number[], answer: unknown, errorCredits: number): ItemOutcome[] {
  const answers = (Array.isArray(answer) ? answer : answer === undefined ? [] : [answer]).filter(isAnswer);
  const state: ('open' | 'ok' | 'error')[] = items.map(() => 'open');
  const loose: AnswerShape[] = [];
  for (const a of answers) {
    const i = a.id === undefined ? -1 : items.findIndex((it, k) => state[k] === 'open' && it.id !== undefined && it.id === a.id);
    if (i < 0) loose.push(a);
    else state[i] = a.error !== undefined && a.error !== null ? 'error' : 'ok';
  }
  for (const a of loose) {
    if (a.error === undefined || a.error === null) continue;
    const i = items.findIndex((it, k) => state[k] === 'open' && it.id !== undefined);
    if (i >= 0) state[i] = 'error';
  }
  return items.map((it, i) => {
    const s = state[i];
    if (s === 'ok' || (s === 'open' && it.id === undefined)) return { method: it.method, credits: credits[i], error: false };
    return { method: it.method, credits: errorCredits, error: true };
  });
}

/** Per method: calls, credits and error answers (the usage rows' detail), in first-seen order. */
export function byMethod(outs: ItemOutcome[]): { method: string; calls: number; credits: number; errors: number }[] {
  const m = new Map<string, { method: string; calls: number; credits: number; errors: number }>();
  for (const o of outs) {
    const e = m.get(o.method) ?? { method: o.method, calls: 0, credits: 0, errors: 0 };
    e.calls++;
    e.credits += o.credits;
    if (o.error) e.errors++;
    m.set(o.method, e);
  }
  return [...m.values()];
}
