// POST /crypto/rpc/{network}, framework-free: resolve the network → check every call (shape, method allowed on the
// network's family, no subscriptions or filters; one refused call refuses the batch) → price it (credits per call,
// the worst case of the batch) → the caller's caps (requests per minute, credits per 24 h) → the Idempotency-Key
// claim (a replay returns here, unbilled) → one metered call: reserve the worst case, forward to the upstream pool,
// settle on what the answers cost (a JSON-RPC error at the flat rate), or release when no answer came.
//
// Paid on the spot (x402 per request, lib/wallet/per-request.ts): a caller without credentials hears the worst case
// as an `exact` price right after pricing, before any cap or claim is taken. A paid call runs as the payer's wallet
// through the same caps and the same Idempotency-Key claim; its payment is settled and credited when the meter opens
// (lib/billing/payment-gate.ts), so a call refused by a cap or replayed under its key moves no money. A replay
// answers with the settlement the first attempt got.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ApiError } from '../api/errors.ts';
import type { UnitPrices } from '../billing/pricing.ts';
import { type MeterContext, type MeterDeps, type MeteredCall, openMeter } from '../billing/metered.ts';
import { isQuote, mayReplay } from '../billing/payment-gate.ts';
import type { RpcConfig } from './config.ts';
import { type Claim, IDEMPOTENCY_KEY, IdempotencyStore } from '../billing/idempotency.ts';
import { answerWithIds, callIds, withoutIds } from './ids.ts';
import { RpcLimiter } from './limits.ts';
import { type MethodRule, refusalReason, ruleFor, TIER_MULTIPLIER } from './methods.ts';
import type { NetworkSpec } from './networks.ts';
import { byMethod, creditPrices, creditsCostUsd, outcomes, worstCase } from './pricing.ts';
import { parseRpcRequest } from './request.ts';
import { UpstreamSet } from './upstreams.ts';
import { rpcModelId } from '../billing/rpc-usage.ts';
import { log } from '../log.ts';

/** What a call's Idempotency-Key keeps: the answer it was billed for and the ids of the calls it answered. */
interface StoredAnswer {
  body: string;
  credits: number;
  /** As written (null for a notification), so a replay can answer with the retry's ids. */
  callIds: (string | null)[];
  /** The x402 settlement headers of a call paid on the spot, given again with its replay. */
  payment?: Record<string, string>;
}

/** Method rules remembered per network (lists of a few hundred names; an unknown name costs a lookup, not memory). */
const RULE_CACHE = 2048;

/** The response headers a payment on the spot adds (lib/wallet/per-request.ts). */
const PAYMENT_HEADERS = ['PAYMENT-RESPONSE', 'X-PAYMENT-RESPONSE'];

export interface RpcCallContext extends MeterContext {
  /** Aborts when the client goes away (a read-only call without an Idempotency-Key is then abandoned). */
  signal: AbortSignal;
}

export interface RpcResult {
  /** The node's JSON-RPC answer as it sent it (or as it was stored, for a replay). */
  body: string;
  credits: number;
  /** credits × the price per credit, to 8 decimals. */
  costUsd: string;
  replayed: boolean;
  /** Spendable USD after the call (micro-units): X-Balance-Remaining for wallets. */
  usdAfter: number;
}

export interface RpcProxyDeps extends MeterDeps {
  redis?: Redis;
  /** Namespace of the shared counters in Redis. */
  keyPrefix: string;
  log?: (message: string) => void;
}

function paymentHeaders(headers: Record<string, string>): Record<string, string> | undefined {
  const found = PAYMENT_HEADERS.filter((name) => headers[name] !== undefined);
  return found.length > 0 ? Object.fromEntries(found.map((name) => [name, headers[name]])) : undefined;
}

export class RpcProxy {
  readonly config: RpcConfig;
  private readonly deps: MeterDeps;
  private readonly upstreams: UpstreamSet;
  private readonly limiter: RpcLimiter;
  private readonly idempotency: IdempotencyStore;
  private readonly prices: UnitPrices;
  /** Per network, the rules of the methods called so far (the tables are fixed at start); bounded, see ruleOf. */
  private readonly rules = new Map<string, Map<string, MethodRule | undefined>>();

  constructor(config: RpcConfig, deps: RpcProxyDeps) {
    this.config = config;
    this.deps = { ledger: deps.ledger, limiter: deps.limiter, store: deps.store };
    this.prices = creditPrices(config.creditPriceUsd);
    const entries = [...config.upstreams].map(([network, urls]) => ({ network, family: config.networks.get(network)!.family, urls }));
    this.upstreams = new UpstreamSet(entries, { timeoutMs: config.timeoutMs, healthIntervalMs: config.healthIntervalMs, log: deps.log });
    this.limiter = new RpcLimiter(config, { redis: deps.redis, keyPrefix: deps.keyPrefix, warn: deps.log });
    // A claim is taken for abandoned only after its owner could have tried every upstream and settled.
    const mostUpstreams = Math.max(1, ...entries.map((e) => e.urls.length));
    this.idempotency = new IdempotencyStore(deps.store, { staleMs: config.timeoutMs * (mostUpstreams + 1) + 30_000 });
  }

  /** The networks served (those with an upstream), sorted. */
  networks(): string[] {
    return this.upstreams.names();
  }

  async call(ctx: RpcCallContext, slug: string, raw: Buffer, body: unknown, idempotencyKey: string | undefined): Promise<RpcResult> {
    const { networks, errorCredits, creditPriceUsd } = this.config;
    const spec = networks.get(slug);
    const pool = this.upstreams.get(slug);
    if (!spec || !pool) {
      throw new ApiError('RPC_NETWORK_NOT_SUPPORTED', `The network "${slug.slice(0, 64)}" is not served here; GET /crypto/rpc/networks lists those that are`, {
        param: 'network',
      });
    }
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new ApiError('INVALID_REQUEST', 'Idempotency-Key must be 1 to 255 characters of A-Z, a-z, 0-9, _ and -', { param: 'Idempotency-Key' });
    }
    const req = parseRpcRequest(body);
    const rules = req.items.map((it) => this.ruleOf(slug, spec, it.method));
    const refused = new Map<string, string>();
    req.items.forEach((it, i) => {
      const rule = rules[i];
      if (!rule || 'refused' in rule) refused.set(it.method, refusalReason(rule, slug));
    });
    if (refused.size > 0) {
      const list = [...refused].map(([m, why]) => `${m} (${why})`).join('; ');
      throw new ApiError('RPC_METHOD_NOT_SUPPORTED', `${req.batch ? 'The batch calls methods' : 'The method is'} not supported on ${slug}: ${list}`, {
        methods: [...refused.keys()],
      });
    }
    const credits = rules.map((r) => spec.baseCredits * TIER_MULTIPLIER[(r as { tier: keyof typeof TIER_MULTIPLIER }).tier]);
    const sends = rules.some((r) => r && 'tier' in r && r.sends === true);
    const worst = worstCase(credits, errorCredits);
    const metering: MeteredCall = {
      modelId: rpcModelId(slug),
      endpoint: `/crypto/rpc/${slug}`,
      prices: this.prices,
      unit: 'rpc_credit',
      estimate: { rpcCredits: worst },
    };

    const p = ctx.principal;
    // A caller that has not paid yet owns no account: its meter only answers the 402 with the price.
    if (isQuote(p)) await openMeter(this.deps, ctx, metering);
    const admission = await this.limiter.admit(p.keyId, worst);
    Object.assign(ctx.responseHeaders, admission.headers);
    let claim: Claim | undefined;
    let ids: (string | null)[] = [];
    try {
      if (idempotencyKey !== undefined) {
        // The same calls on the same network, whatever ids the client's transport numbered them with this time.
        const text = raw.toString('utf8');
        ids = callIds(text, req.items.length);
        const hash = createHash('sha256').update(slug).update('\n').update(withoutIds(text)).digest('hex');
        claim = await this.idempotency.claim(p.accountId, idempotencyKey, hash, ctx.requestId);
        if (claim.kind === 'replay') {
          if (!mayReplay(p, claim.owner)) throw new ApiError('PAYMENT_ALREADY_CREDITED');
          admission.finish(0);
          const b = await this.deps.ledger.balances(p.accountId);
          const { body: stored, credits: billed, callIds: original, payment } = JSON.parse(claim.answer) as StoredAnswer;
          Object.assign(ctx.responseHeaders, payment);
          const replay = answerWithIds(stored, original, ids);
          return { body: replay, credits: billed, costUsd: creditsCostUsd(billed, creditPriceUsd), replayed: true, usdAfter: b.usd - b.usdHeld };
        }
      }
      const meter = await openMeter(this.deps, ctx, metering);
      const payment = paymentHeaders(ctx.responseHeaders);
      let answer;
      try {
        // A call that changes state, or one the client may retry by key, runs to its end even if the client leaves.
        const signal = sends || claim ? undefined : ctx.signal;
        answer = await pool.forward(raw, { sends, expectsNothing: req.items.every((it) => it.id === undefined), signal });
      } catch (e) {
        meter.release();
        throw e;
      }
      const outs = outcomes(req.items, credits, answer.json, errorCredits);
      const total = outs.reduce((n, o) => n + o.credits, 0);
      // The methods' rows are written with the usage row, in the settlement's transaction and journal line.
      const charged = meter.settle({ rpcCredits: total }, { rpc: { network: slug, methods: byMethod(outs) } });
      admission.finish(total);
      await meter.recorded();
      const owner = claim?.kind === 'owner' ? claim : undefined;
      claim = undefined;
      // The answer was billed: a failure to store it leaves the claim pending (a retry waits, then takes it over),
      // which is safer than handing the key back at once.
      await owner
        ?.complete(JSON.stringify({ body: answer.text, credits: total, callIds: ids, payment } satisfies StoredAnswer))
        .catch((e) => log.error({ err: e }, `[${ctx.requestId}] crypto-rpc: could not store the answer for replay`));
      return {
        body: answer.text,
        credits: total,
        costUsd: creditsCostUsd(total, creditPriceUsd),
        replayed: false,
        usdAfter: meter.before.usd - meter.before.usdHeld - charged.usd,
      };
    } catch (e) {
      admission.finish(0);
      if (claim?.kind === 'owner') await claim.abandon().catch((err) => log.error({ err }, 'crypto-rpc: could not give an idempotency claim up'));
      throw e;
    }
  }

  /**
   * ruleFor, remembered: it merges the network's tables and scans their patterns on every call otherwise. Method names
   * come from clients, so at most RULE_CACHE names are kept per network; others are looked up each time.
   */
  private ruleOf(slug: string, spec: NetworkSpec, method: string): MethodRule | undefined {
    let known = this.rules.get(slug);
    if (!known) this.rules.set(slug, (known = new Map()));
    if (known.has(method)) return known.get(method);
    const rule = ruleFor(this.config.methodSets, spec, method);
    if (known.size < RULE_CACHE) known.set(method, rule);
    return rule;
  }

  close(): Promise<void> {
    return this.upstreams.close();
  }
}
