// A payment gate on a principal: work paid on the spot (x402 per request, lib/wallet/per-request.ts) is priced by the
// same code that prices its hold. The metered call hands its worst case to the gate when it knows it, before it
// admits or holds anything and before any engine runs: the gate either refuses with the price (the unpaid request's
// 402) or takes the payment for that price and credits it to the principal's account, and the call then holds and
// settles as any other. A payment that settles only what the work used (x402's `upto`) hands the call a tab
// instead: the call settles the tab with its charge when it settles, or releases it when it releases its hold. The
// gate is opened once per request; later meters of the same request pass through.
import type { Principal } from '../auth/keys.ts';
import type { Amount } from './money.ts';

/** A payment authorised before the work and settled after it, for what the work was charged. */
export interface PaymentTab {
  /** Settles the charge; the call's settlement is recorded only once this resolves (a rejection fails the answer). */
  settle(charge: Amount): Promise<void>;
  /** The work produced nothing: nothing is paid. */
  release(): Promise<void>;
  /** The charge could not be recorded (it may or may not stand): the payment is left for its recovery to finish. */
  leave(): void;
}

export type PaymentGate = (price: Amount, meta: { modelId: string; endpoint: string }) => Promise<void | PaymentTab>;

const gates = new WeakMap<Principal, { gate: PaymentGate; opened: boolean; quote: boolean; paidFor?: string }>();

/**
 * A copy of `principal` for one request, whose first metered call passes `gate`. `quote`: the principal is a
 * placeholder whose gate only refuses with the price (it owns no account). `paidFor`: the caller presented a payment
 * already spent on that request: only that request's answer may be replayed under its Idempotency-Key (the gate
 * refuses anything that would run).
 */
export function gatedPrincipal(principal: Principal, gate: PaymentGate, opts: { quote?: boolean; paidFor?: string } = {}): Principal {
  const copy = { ...principal };
  gates.set(copy, { gate, opened: false, quote: opts.quote ?? false, paidFor: opts.paidFor });
  return copy;
}

/** Whether the principal is a placeholder that only asks for payment. */
export const isQuote = (p: Principal): boolean => gates.get(p)?.quote === true;

/**
 * Whether the principal may have the stored answer of request `owner` replayed: anyone else may; a caller that
 * presented a spent payment only the answer of the request that payment paid for.
 */
export function mayReplay(p: Principal, owner: string): boolean {
  const paidFor = gates.get(p)?.paidFor;
  return paidFor === undefined || paidFor === owner;
}

/** Whether the principal's work is still waiting on its payment (its account may hold nothing yet). */
export const awaitsPayment = (p: Principal): boolean => gates.get(p)?.opened === false;

/** Runs the principal's gate, once, with the price of its first metered call; the tab of a payment settled after. */
export async function passGate(p: Principal, price: Amount, meta: { modelId: string; endpoint: string }): Promise<PaymentTab | undefined> {
  const g = gates.get(p);
  if (!g || g.opened) return undefined;
  g.opened = true;
  return (await g.gate(price, meta)) ?? undefined;
}
