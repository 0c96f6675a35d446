// GET /api_keys/rate_limits (either key type: the calling key's status) and GET /api_keys/rate_limits/log (ADMIN).
import { keySpent } from '../billing/key-limits.ts';
import { fromMicros, nextEpochStart } from '../billing/money.ts';
import { keyLimitOf } from '../auth/keys.ts';
import { listBreaches } from './breach-log.ts';
import { principalOf, type RequestCtx, tierOf } from '../http/context.ts';
import { json, type Reply } from '../http/reply.ts';

export async function rateLimitStatus(ctx: RequestCtx): Promise<Reply> {
  const p = principalOf(ctx);
  const { store, catalogue, limiter } = ctx.svc;
  const now = Date.now();
  const tier = tierOf(p);
  const b = await ctx.svc.ledger.balances(p.accountId, now);
  const usd = b.usd - b.usdHeld;
  const diem = Math.max(0, b.diem - b.diemHeld);
  // Access is what admission would decide for a minimal request: credit left, and the key's caps not spent.
  const limit = keyLimitOf(p.key);
  let capsLeft = true;
  if (limit) {
    const spent = await store.tx((q) => keySpent(q, limit, now));
    const usdLeft = limit.usd === null || spent.usd < limit.usd;
    const diemLeft = limit.diem === null || spent.diem < limit.diem;
    capsLeft = (usdLeft && usd > 0) || (diemLeft && diem > 0);
  }
  const rateLimits = catalogue.models.map((m) => {
    const cls = limiter.classOf(m, tier);
    const list = [{ type: 'RPM', amount: cls.rpm }];
    if (cls.rpd !== undefined) list.push({ type: 'RPD', amount: cls.rpd });
    if (cls.tpm !== undefined) list.push({ type: 'TPM', amount: cls.tpm });
    return { apiModelId: m.id, rateLimits: list };
  });
  return json({
    data: {
      accessPermitted: (usd > 0 || diem > 0) && capsLeft,
      apiTier: { id: tier, isCharged: true },
      balances: { USD: fromMicros(usd), DIEM: fromMicros(diem) },
      keyExpiration: p.key.expiresAt === null ? null : new Date(p.key.expiresAt).toISOString(),
      nextEpochBegins: new Date(nextEpochStart(now)).toISOString(),
      rateLimits,
    },
  });
}

export async function rateLimitLog(ctx: RequestCtx): Promise<Reply> {
  const p = principalOf(ctx);
  return json({ object: 'list', data: await listBreaches(ctx.svc.store, p.accountId, 50) });
}
