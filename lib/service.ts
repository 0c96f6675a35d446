// The composition root: everything a request handler needs, built once from the configuration. The API layer, the
// browser app's route handlers and the operator CLI all open the service through here.
import { searchProviderFrom } from './augment/search/from-env.ts';
import type { SearchProvider } from './augment/types.ts';
import { clearAllHolds, releaseStaleHolds } from './billing/ledger.ts';
import { Ledger } from './billing/ledger-service.ts';
import { seedCharacters } from './characters/seed.ts';
import type { Config } from './config.ts';
import { lockDataDir } from './db/data-dir-lock.ts';
import { openStore } from './db/open.ts';
import type { Store } from './db/store.ts';
import { type Catalogue, DEFAULT_CATALOGUE, loadCatalogue } from './models/catalogue.ts';
import { EngineRegistry } from './inference/registry.ts';
import { AbuseGuard } from './limits/abuse.ts';
import { RateLimiter } from './limits/rate-limiter.ts';
import type { Redis } from 'ioredis';
import type { ChatDeps } from './inference/chat/pipeline.ts';
import { closeRedis, connectRedis } from './limits/redis.ts';
import { WalletService } from './wallet/service.ts';

export interface Service {
  config: Config;
  store: Store;
  ledger: Ledger;
  catalogue: Catalogue;
  engines: EngineRegistry;
  limiter: RateLimiter;
  abuse: AbuseGuard;
  /** The web search provider (LAGOON_SEARCH_PROVIDER), when one is configured. */
  searchProvider: SearchProvider | undefined;
  searchAvailable: boolean;
  /** Wallet users: Sign-In-With-X and x402 top-ups. */
  wallet: WalletService;
  /** The shared Redis client (REDIS_URL), for counters every instance must share; undefined on one instance. */
  redis: Redis | undefined;
  /** What the chat pipeline runs on, for the API layer and the browser app alike. */
  chatDeps: ChatDeps;
  close(): Promise<void>;
}

// No request runs longer than this, so older holds belong to a process that died mid-request.
const STALE_HOLD_MS = 60 * 60 * 1000;

export async function createService(config: Config, opts: { seed?: boolean } = {}): Promise<Service> {
  const searchProvider = searchProviderFrom(config.search);
  const catalogue = loadCatalogue(config.modelsFile ?? DEFAULT_CATALOGUE, config.catalogueVar);
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const soleWriter = store.kind === 'sqlite';
  const unlock = soleWriter ? lockDataDir(config.dataDir) : () => {};
  // With the data dir locked no request can be in flight, so every held amount is left over from a previous run.
  if (soleWriter) await clearAllHolds(store);
  else await releaseStaleHolds(store, STALE_HOLD_MS);
  if (opts.seed !== false) await seedCharacters(store);
  const engines = new EngineRegistry(config.catalogueVar);
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  const keyPrefix = `${config.redisPrefix}:rl`;
  const limiter = new RateLimiter(config.limits, { redis, keyPrefix });
  const abuse = new AbuseGuard(config.limits.abuse, { redis, keyPrefix });
  const ledger = new Ledger(store, { soleWriter });
  return {
    config,
    store,
    ledger,
    catalogue,
    engines,
    limiter,
    abuse,
    searchProvider,
    searchAvailable: searchProvider !== undefined,
    redis,
    wallet: new WalletService(store, ledger, config),
    chatDeps: {
      store,
      ledger,
      limiter,
      catalogue,
      engines,
      wire: config.wire,
      searchAvailable: searchProvider !== undefined,
      searchProvider,
      augmentPrices: config.augmentPrices,
      fetchAllowHosts: config.fetchAllowHosts,
    },
    async close() {
      await ledger.drain();
      await engines.close();
      await store.close();
      if (redis) await closeRedis(redis);
      unlock();
    },
  };
}
