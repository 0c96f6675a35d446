// Credit amounts are integer micro-units (1 USD = 1,000,000) so that sums never drift; floats only at the wire.

export const MICROS = 1_000_000;

export interface Amount {
  usd: number;
  diem: number;
}

export const ZERO: Amount = { usd: 0, diem: 0 };

export function toMicros(value: number): number {
  if (!Number.isFinite(value)) throw new RangeError('amount must be finite');
  return Math.round(value * MICROS);
}

export const fromMicros = (micros: number): number => micros / MICROS;

/** Balances on the wire: decimal strings with 6 places, as in `x-service-balance-usd`. */
export const microsToString = (micros: number): string => (micros / MICROS).toFixed(6);

const DAY_MS = 86_400_000;
let epochDay = -1;
let epochText = '';

/** The UTC day a DIEM allowance belongs to (YYYY-MM-DD); it resets at 00:00 UTC. Memoised: it runs per request. */
export function diemEpoch(now: number): string {
  const day = Math.floor(now / DAY_MS);
  if (day !== epochDay) {
    epochDay = day;
    epochText = new Date(day * DAY_MS).toISOString().slice(0, 10);
  }
  return epochText;
}

export function nextEpochStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
}
