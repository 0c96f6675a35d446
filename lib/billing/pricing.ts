// What a request costs, in every unit a model can bill: tokens, images, characters of speech, seconds of audio or
// video, RPC credits and calls. The catalogue declares a model's prices (lib/models/schema.ts `pricing`); `unitPrices`
// turns them into micro-units per unit once per entry, and one function prices a set of quantities both for the
// worst case (`quote`: the hold, and a price shown before the work) and for the actual use (`costOf`).
// Token prices are per million tokens, so a token count times the price is already micro-units.
import type { ModelEntry } from '../models/schema.ts';
import type { Amount } from './money.ts';

/** The unit a usage row is counted in. */
export type Unit = 'token' | 'image' | 'character' | 'second' | 'rpc_credit' | 'call';
export const UNITS: readonly Unit[] = ['token', 'image', 'character', 'second', 'rpc_credit', 'call'];

/** Micro-units per one unit, per currency. */
export interface Rate {
  usd: number;
  diem: number;
}

/** A price list in micro-units per unit: a model's (from the catalogue) or a server-priced call's. */
export interface UnitPrices {
  /** Per token. */
  input: Rate;
  cachedInput: Rate;
  output: Rate;
  image?: Rate;
  /** Per image at a size ("1024x1024"), instead of `image`. */
  imageBySize?: Record<string, Rate>;
  /** Per inference step of each image, on top of the per-image price. */
  imageStep?: Rate;
  /** Per character (the catalogue says per 1,000). */
  character?: Rate;
  second?: Rate;
  rpcCredit?: Rate;
  call?: Rate;
}

/** What a request uses (or, for a quote, may use at most). Every count is a whole number; absent is zero. */
export interface Quantities {
  promptTokens?: number;
  completionTokens?: number;
  /** Of promptTokens, those served from the prompt cache. */
  cachedTokens?: number;
  images?: number;
  /** WIDTHxHEIGHT, for a model priced by size. */
  imageSize?: string;
  /** Inference steps per image, for a model priced by step. */
  imageSteps?: number;
  characters?: number;
  /** Whole seconds (a started second counts). */
  seconds?: number;
  rpcCredits?: number;
  calls?: number;
  /** Web searches and scraped pages, priced by the server (`Fees`), not the catalogue. */
  searches?: number;
  scrapedUrls?: number;
}

/** The server's per-search and per-scraped-URL fees, in micro-units (USD and DIEM alike). */
export interface Fees {
  search: number;
  scrapedUrl: number;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

// Catalogue prices are decimals; a micro-unit rate is rounded to 6 places so that 0.07 USD is 70,000 micro-USD, not
// 70,000.00000000001 (which a worst case would round up).
const micros = (usd: number, per: number) => Number(((usd * 1_000_000) / per).toFixed(6));
const rate = (usd: number | undefined, diem: number | undefined, per = 1): Rate | undefined =>
  usd === undefined ? undefined : { usd: micros(usd, per), diem: micros(diem ?? usd, per) };

const cache = new WeakMap<ModelEntry['pricing'], UnitPrices>();

/** A model's prices in micro-units per unit (memoised per catalogue entry: this runs per request). */
export function unitPrices(m: ModelEntry): UnitPrices {
  const p = m.pricing;
  let prices = cache.get(p);
  if (prices) return prices;
  prices = {
    // Token prices are used as written: per million tokens is micro-units per token.
    input: { usd: p.input_usd, diem: p.input_diem },
    cachedInput: { usd: p.cached_input_usd ?? p.input_usd, diem: p.cached_input_diem ?? p.cached_input_usd ?? p.input_diem },
    output: { usd: p.output_usd, diem: p.output_diem },
    image: rate(p.per_image_usd, p.per_image_diem),
    imageBySize: p.per_image_by_size && Object.fromEntries(Object.entries(p.per_image_by_size).map(([size, r]) => [size, rate(r.usd, r.diem)!])),
    imageStep: rate(p.per_image_step_usd, p.per_image_step_diem),
    character: rate(p.per_1k_characters_usd, p.per_1k_characters_diem, 1000),
    second: rate(p.per_second_usd, p.per_second_diem),
    rpcCredit: rate(p.per_rpc_credit_usd, p.per_rpc_credit_diem),
    call: rate(p.per_call_usd, p.per_call_diem),
  };
  cache.set(p, prices);
  return prices;
}

const FREE: Rate = { usd: 0, diem: 0 };

/** A flat price per call in micro-units, both currencies alike (the augment endpoints' configured prices). */
export function perCallPrices(price: number): UnitPrices {
  return { input: FREE, cachedInput: FREE, output: FREE, call: { usd: price, diem: price } };
}

/** A unit the request uses but the price list leaves out is refused, never free: quoting the worst case throws first. */
function unpriced(what: string): never {
  throw new RangeError(`no price for ${what}`);
}

function priced(p: UnitPrices, q: Quantities, c: keyof Rate, fees: Fees | undefined): number {
  const prompt = q.promptTokens ?? 0;
  const cached = Math.min(q.cachedTokens ?? 0, prompt);
  let n = (prompt - cached) * p.input[c] + cached * p.cachedInput[c] + (q.completionTokens ?? 0) * p.output[c];
  // Every other unit only when used: the token path (chat, embeddings) stays as it was.
  if (q.images) {
    const perImage =
      (q.imageSize !== undefined && p.imageBySize && Object.hasOwn(p.imageBySize, q.imageSize) && p.imageBySize[q.imageSize]) ||
      p.image ||
      unpriced(`images${q.imageSize ? ` of size ${q.imageSize}` : ''}`);
    n += q.images * (perImage[c] + (q.imageSteps ?? 0) * (p.imageStep?.[c] ?? 0));
  }
  if (q.characters) n += q.characters * (p.character ?? unpriced('characters'))[c];
  if (q.seconds) n += q.seconds * (p.second ?? unpriced('seconds'))[c];
  if (q.rpcCredits) n += q.rpcCredits * (p.rpcCredit ?? unpriced('RPC credits'))[c];
  if (q.calls) n += q.calls * (p.call ?? unpriced('calls'))[c];
  if (fees) n += (q.searches ?? 0) * fees.search + (q.scrapedUrls ?? 0) * fees.scrapedUrl;
  return n;
}

/**
 * The price of work not yet done, rounded up: the ledger's hold for a request's worst case, and the price a client
 * is quoted before the work starts (the same quantities give the same amount either way).
 */
export function quote(p: UnitPrices, q: Quantities, fees?: Fees): Amount {
  return { usd: Math.ceil(priced(p, q, 'usd', fees)), diem: Math.ceil(priced(p, q, 'diem', fees)) };
}

/** The cost of finished work, rounded to the nearest micro-unit. */
export function costOfUse(p: UnitPrices, q: Quantities, fees?: Fees): Amount {
  return { usd: Math.round(priced(p, q, 'usd', fees)), diem: Math.round(priced(p, q, 'diem', fees)) };
}

/** The cost of finished work in micro-units, fractions kept: the ledger carries what it does not charge (ledger.ts). */
export function exactCostOfUse(p: UnitPrices, q: Quantities, fees?: Fees): Amount {
  return { usd: priced(p, q, 'usd', fees), diem: priced(p, q, 'diem', fees) };
}

/** The cost of a finished token request (every choice's completion tokens are in completionTokens). */
export function costOf(m: ModelEntry, u: TokenUsage): Amount {
  return costOfUse(unitPrices(m), u);
}

/** The worst case of a token request not yet run: its whole prompt uncached and every choice at max_tokens. */
export function estimateOf(m: ModelEntry, promptTokens: number, maxTokens: number, n: number): Amount {
  return quote(unitPrices(m), { promptTokens, completionTokens: maxTokens * n });
}

/** How many of `unit` the quantities hold (tokens: prompt and completion together). */
export function quantityOf(unit: Unit, q: Quantities): number {
  switch (unit) {
    case 'token':
      return (q.promptTokens ?? 0) + (q.completionTokens ?? 0);
    case 'image':
      return q.images ?? 0;
    case 'character':
      return q.characters ?? 0;
    case 'second':
      return q.seconds ?? 0;
    case 'rpc_credit':
      return q.rpcCredits ?? 0;
    case 'call':
      return q.calls ?? 0;
  }
}
