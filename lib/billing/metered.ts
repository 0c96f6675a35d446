// The metered call: every billed inference endpoint goes admit → reserve the worst case → run → settle exactly once.
// Admission takes the request (and its token estimate; work in other units admits as 0 tokens) from the credential's
// rate budget for the model; the hold is the quote of the worst case; the settlement bills the quantities actually
// used, once (a second settle, or a settle after a release, is a no-op); a failure before any output releases the
// hold and the token estimate. Work that fails or is aborted midway settles what it produced (the chat stream calls
// `meter.settle` from its `finally`), so partial output is billed and nothing else is.
//
// `openMeter` is the two-step form for work whose settlement happens later (a stream settles after the response
// started); `metered` wraps a run that ends within the call (embeddings, the augment endpoints, media). Either way the
// settlement is recorded before the response's last bytes (`Meter.recorded`: its journal line on the embedded store,
// its commit on PostgreSQL): a crash can lose a charge only for an answer the client did not receive in full.
import { failed, inSpan, openSpan, tracing } from '../metrics/tracing.ts';
import { keyLimitOf, type Principal } from '../auth/keys.ts';
import { type Balances, chargeFor, type Hold, shortOfCredit, splitCharge, type UsageRecord } from './ledger.ts';
import type { Ledger } from './ledger-service.ts';
import type { Amount } from './money.ts';
import { exactCostOfUse, type Fees, type Quantities, quantityOf, quote, type Unit, type UnitPrices, unitPrices } from './pricing.ts';
import type { Store } from '../db/store.ts';
import { recordBreach } from '../limits/breach-log.ts';
import { type Admission, type RateLimiter, rateLimitTypeOf } from '../limits/rate-limiter.ts';
import { log, noteModel } from '../log.ts';
import { holdClosed, holdOpened, recordUsage } from '../metrics/registry.ts';
import type { ModelEntry } from '../models/schema.ts';
import { refuseByModelPrivacy } from '../auth/model-privacy.ts';
import { refuseByMember } from '../teams/admission.ts';
import { awaitsPayment, passGate, type PaymentTab } from './payment-gate.ts';

export interface MeterDeps {
  ledger: Ledger;
  limiter: RateLimiter;
  store: Store;
}

export interface MeterContext {
  principal: Principal;
  /** The usage row's key. */
  requestId: string;
  /** Receives the x-ratelimit-* headers from admission on. */
  responseHeaders: Record<string, string>;
}

export interface MeteredCall {
  /**
   * The model that does the work: its catalogue prices, its rate budget, its id on the usage row. Absent for work the
   * server prices itself (the augment endpoints), which is not rate-limited.
   */
  model?: ModelEntry;
  /** The usage row's model id when there is no model. */
  modelId?: string;
  endpoint: string;
  /** Default: the model's catalogue prices. */
  prices?: UnitPrices;
  /** Per-search and per-scraped-page fees, for `searches` and `scrapedUrls` (chat's web augmentation). */
  fees?: Fees;
  /** The unit the usage row counts (default: token). */
  unit?: Unit;
  /** The most the work can use: the hold is `quote(prices, estimate, fees)`, the same amount a client is quoted. */
  estimate: Quantities;
}

/** An admitted call holding its worst case; settled or released exactly once. */
export interface Meter {
  readonly hold: Hold;
  /** The balances when the hold was taken. */
  readonly before: Balances;
  /** Whether the meter was neither settled nor released yet. */
  readonly open: boolean;
  /**
   * Bills what the work used and returns the charge (known from the hold at once; the ledger commits it:
   * `recorded`). Only the first settle bills; later ones, and a settle after a release, return the first outcome.
   * `detail`: what the usage row's settlement writes beside it (a JSON-RPC call's methods).
   */
  settle(actual: Quantities, detail?: Pick<UsageRecord, 'rpc'>): Amount;
  /**
   * Resolves once no crash can lose the settlement (journaled, or committed: Ledger.settle); rejects when it could
   * not be journaled and its commit failed. Awaited before the last bytes of a response, so a complete answer always
   * has its usage row. Before a settle, or after a release, it resolves at once.
   */
  recorded(): Promise<void>;
  /** Nothing was produced: the hold goes back to the balance and the token estimate to the rate budget. */
  release(): void;
}

const tokensOf = (q: Quantities) => (q.promptTokens ?? 0) + (q.completionTokens ?? 0);

/** The least a hold of this quote adds to a team member's cap (USD and DIEM at par), however it splits. */
const leastHoldOf = (estimate: Amount) => Math.min(estimate.usd, estimate.diem);

/** Takes the request and its token estimate from the credential's budget for this model; 429 (logged) when over. */
export async function admit(
  deps: Pick<MeterDeps, 'limiter' | 'store'>,
  ctx: Pick<MeterContext, 'principal'>,
  model: ModelEntry,
  tokens: number,
  /**
   * The least the call's hold can be (micro-units, USD and DIEM together), for a team member's early cap refusal (0:
   * only a cap already spent refuses). The reservation enforces the cap itself.
   */
  leastHold = 0,
): Promise<Admission> {
  const p = ctx.principal;
  // Every model-bound call (chat, responses, embeddings, media, jobs) is admitted here: the key's modelPrivacy is
  // enforced once, before any budget is taken or anything held; so are a team member's model list and cap.
  refuseByModelPrivacy(p, model);
  await refuseByMember(deps.store, p, model.id, leastHold);
  const tier = p.accountTier === 'partner' ? 'partner' : 'default';
  try {
    return await deps.limiter.admit({ credential: p.keyId, modelId: model.id, model, tier }, tokens);
  } catch (e) {
    const type = rateLimitTypeOf(e);
    if (type) {
      recordBreach(deps.store, { accountId: p.accountId, keyId: p.keyId, modelId: model.id, type, tier }).catch((err) =>
        log.error({ err }, 'could not record a rate-limit breach'),
      );
    }
    throw e;
  }
}

class OpenMeter implements Meter {
  readonly hold: Hold;
  readonly before: Balances;
  private readonly ledger: Ledger;
  private readonly admission: Admission | undefined;
  private readonly call: MeteredCall;
  private readonly prices: UnitPrices;
  /** The charge once settled (zero once released); undefined while open. */
  private outcome: Amount | undefined;
  /** Resolves once the settlement is recorded (Ledger.settle), and its payment settled when it has a tab. */
  private recordedAt: Promise<unknown> | undefined;
  /** The payment settled after the work (x402 `upto`), when the call's gate handed one out. */
  private readonly tab: PaymentTab | undefined;

  constructor(
    ledger: Ledger,
    admission: Admission | undefined,
    call: MeteredCall,
    prices: UnitPrices,
    hold: Hold,
    before: Balances,
    tab: PaymentTab | undefined,
  ) {
    this.tab = tab;
    this.ledger = ledger;
    this.admission = admission;
    this.call = call;
    this.prices = prices;
    this.hold = hold;
    this.before = before;
    this.outcome = undefined;
  }

  get open(): boolean {
    return this.outcome === undefined;
  }

  settle(actual: Quantities, detail?: Pick<UsageRecord, 'rpc'>): Amount {
    if (this.outcome) return this.outcome;
    const call = this.call;
    void this.admission?.finish(tokensOf(actual));
    const exact = exactCostOfUse(this.prices, actual, call.fees);
    const cost = { usd: Math.round(exact.usd), diem: Math.round(exact.diem) };
    const unit = call.unit ?? 'token';
    // The ledger gets the exact cost (a fraction of a micro-unit is carried per account); the caller sees it rounded.
    const span = openSpan('settlement', { 'lagoon.request_id': this.hold.requestId, 'lagoon.unit': call.unit ?? 'token' });
    const recorded = this.ledger.settle(this.hold, exact, {
      modelId: call.model?.id ?? call.modelId ?? call.endpoint,
      endpoint: call.endpoint,
      promptTokens: actual.promptTokens ?? 0,
      completionTokens: actual.completionTokens ?? 0,
      cachedTokens: actual.cachedTokens ?? 0,
      searches: actual.searches ?? 0,
      scrapedUrls: actual.scrapedUrls ?? 0,
      unit,
      quantity: quantityOf(unit, actual),
      rpc: detail?.rpc,
    }).recorded;
    this.outcome = chargeFor(cost, this.hold);
    // A tab's payment moves on chain only once the usage row is recorded: after a crash, a usage row is what tells
    // the recovery (lib/wallet/upto-recovery.ts) the charge to settle, and its absence that nothing may have moved.
    const outcome = this.outcome;
    const tab = this.tab;
    this.recordedAt = tab
      ? recorded.then(
          () => tab.settle(outcome),
          (e) => {
            tab.leave();
            throw e;
          },
        )
      : recorded;
    // Whoever awaits `recorded()` sees a failure; nobody awaiting it must not make it an unhandled rejection.
    this.recordedAt.catch(() => {});
    if (span) {
      span.setAttributes({ 'lagoon.charged.usd_micros': this.outcome.usd, 'lagoon.charged.diem_micros': this.outcome.diem });
      // The span lasts until the settlement is recorded (journaled or committed).
      this.recordedAt.then(
        () => span.end(),
        (e) => {
          failed(span, e);
          span.end();
        },
      );
    }
    holdClosed();
    const tokens = { prompt: actual.promptTokens ?? 0, completion: actual.completionTokens ?? 0, cached: actual.cachedTokens ?? 0 };
    recordUsage(call.model?.id ?? call.modelId ?? call.endpoint, tokens, this.outcome);
    return this.outcome;
  }

  async recorded(): Promise<void> {
    await this.recordedAt;
  }

  release(): void {
    if (this.outcome) return;
    this.outcome = { usd: 0, diem: 0 };
    holdClosed();
    void this.ledger.release(this.hold);
    void this.admission?.finish(0);
    this.tab?.release().catch((err) => log.error({ err }, 'could not release a payment settled after the work'));
  }
}

/**
 * Admits the call and reserves its worst case: 429 when over the rate budget, 402 (or a key-limit error) when the
 * credit does not cover the quote; either way nothing stays held. The caller settles or releases the meter.
 */
export function openMeter(deps: MeterDeps, ctx: MeterContext, call: MeteredCall): Promise<Meter> {
  if (!tracing()) return openMeterNow(deps, ctx, call);
  const attributes = { 'lagoon.request_id': ctx.requestId, 'lagoon.model': call.model?.id ?? call.modelId ?? call.endpoint, 'lagoon.endpoint': call.endpoint };
  return inSpan('metered call', attributes, () => openMeterNow(deps, ctx, call));
}

async function openMeterNow(deps: MeterDeps, ctx: MeterContext, call: MeteredCall): Promise<Meter> {
  const prices = call.prices ?? unitPrices(call.model!);
  // Priced before admission: a unit the price list leaves out is refused before it takes any budget.
  const estimate = quote(prices, call.estimate, call.fees);
  // Work paid on the spot is paid here, for its worst case, before anything is admitted or held (or authorised here
  // and paid when the meter settles: its tab).
  const tab = await passGate(ctx.principal, estimate, { modelId: call.model?.id ?? call.modelId ?? call.endpoint, endpoint: call.endpoint });
  try {
    return await admitAndHold(deps, ctx, call, prices, estimate, tab);
  } catch (e) {
    await tab?.release().catch((err) => log.error({ err }, 'could not release a payment settled after the work'));
    throw e;
  }
}

async function admitAndHold(
  deps: MeterDeps,
  ctx: MeterContext,
  call: MeteredCall,
  prices: UnitPrices,
  estimate: Amount,
  tab: PaymentTab | undefined,
): Promise<Meter> {
  let admission: Admission | undefined;
  if (call.model) {
    admission = await admit(deps, ctx, call.model, tokensOf(call.estimate), leastHoldOf(estimate));
    Object.assign(ctx.responseHeaders, admission.headers);
  } else await refuseByMember(deps.store, ctx.principal, undefined, leastHoldOf(estimate));
  const p = ctx.principal;
  const reserved = deps.ledger.reserve({
    requestId: ctx.requestId,
    accountId: p.accountId,
    keyId: p.keyId,
    keyLimit: keyLimitOf(p.key),
    memberId: p.key.memberId,
    estimate,
  });
  // A request refused for credit still counted as a request; its tokens go back to the budget.
  const { hold, before } = await reserved.catch((e) => {
    void admission?.finish(0);
    throw e;
  });
  holdOpened();
  noteModel(ctx.responseHeaders, call.model?.id ?? call.modelId ?? call.endpoint);
  return new OpenMeter(deps.ledger, admission, call, prices, hold, before, tab);
}

/**
 * A metered run that ends within the call: `run` settles the meter with what it used (on success, or with the
 * partial output when it fails midway); a run that throws without settling is released. A run that returns without
 * settling leaves the meter open for the stream it handed out to settle or release when that ends.
 */
export async function metered<T>(deps: MeterDeps, ctx: MeterContext, call: MeteredCall, run: (meter: Meter) => Promise<T>): Promise<T> {
  const meter = await openMeter(deps, ctx, call);
  let value: T;
  try {
    value = await run(meter);
  } catch (e) {
    meter.release();
    throw e;
  }
  // The settlement is recorded before the response is written: a client never holds an answer that was not.
  await meter.recorded();
  return value;
}

/**
 * A cheap refusal before expensive work (counting a huge prompt): 402 when the account's free balance cannot cover
 * even the quote of `call.estimate`, a lower bound of what openMeter will reserve. One balance read; nothing is
 * admitted or held, and passing proves nothing (openMeter still decides). A key with a DIEM cap is left to openMeter,
 * which names the cap when it is what falls short.
 */
export async function refuseUnaffordable(deps: Pick<MeterDeps, 'ledger'>, ctx: Pick<MeterContext, 'principal'>, call: MeteredCall): Promise<void> {
  const p = ctx.principal;
  if (call.model) refuseByModelPrivacy(p, call.model);
  // Work paid on the spot has no credit yet: its payment is taken at openMeter, for the full hold.
  if (awaitsPayment(p) || keyLimitOf(p.key)?.diem != null) return;
  const least = quote(call.prices ?? unitPrices(call.model!), call.estimate, call.fees);
  const b = await deps.ledger.balances(p.accountId);
  if (splitCharge(least, b.diem - b.diemHeld).usd > b.usd - b.usdHeld) throw shortOfCredit(least, b);
}
