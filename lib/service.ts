// The composition root: everything a request handler needs, built once from the configuration. The API layer, the
// browser app's route handlers and the operator CLI all open the service through here.
import { searchProviderFrom } from './augment/search/from-env.ts';
import type { SearchProvider } from './augment/types.ts';
import { InstanceLease } from './billing/instance-lease.ts';
import { clearAllHolds } from './billing/ledger.ts';
import { RpcProxy } from './crypto-rpc/proxy.ts';
import { Ledger } from './billing/ledger-service.ts';
import { seedCharacters } from './characters/seed.ts';
import type { Config } from './config.ts';
import { lockDataDir } from './db/data-dir-lock.ts';
import { openStore } from './db/open.ts';
import type { Store } from './db/store.ts';
import { type Catalogue, DEFAULT_CATALOGUE, loadCatalogue } from './models/catalogue.ts';
import { EngineRegistry } from './inference/registry.ts';
import { catalogueDirOf, videoJobKind } from './inference/video/kind.ts';
import { JobService } from './jobs/service.ts';
import { AudioEngines } from './inference/audio/engines.ts';
import { audioJobKind } from './inference/audio/jobs.ts';
import { imageEnginesFor } from './inference/images/registry.ts';
import { transcribeForChat } from './inference/audio/transcription.ts';
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
  /** This instance's lease on a shared database (PostgreSQL): its holds' owner, heartbeat and orphan sweep. */
  lease: InstanceLease | undefined;
  /** The crypto JSON-RPC proxy: upstream pools and their health checks, per-caller limits, idempotency keys. */
  rpc: RpcProxy;
  /** The engines of the catalogue's speech (tts) and transcription (asr) models. */
  audio: AudioEngines;
  /** Durable jobs (video; long audio registers its kind here too): queue, retrieve, complete, and the workers. */
  jobs: JobService;
  close(): Promise<void>;
}

export async function createService(config: Config, opts: { seed?: boolean } = {}): Promise<Service> {
  const searchProvider = searchProviderFrom(config.search);
  const catalogue = loadCatalogue(config.modelsFile ?? DEFAULT_CATALOGUE, config.catalogueVar);
  // Before the store opens: a catalogue whose audio models name the wrong engines stops the start here.
  const audio = new AudioEngines(catalogue, config.audio, config.catalogueVar);
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const soleWriter = store.kind === 'sqlite';
  const unlock = soleWriter ? lockDataDir(config.dataDir) : () => {};
  // With the data dir locked no request can be in flight, so every held amount is left over from a previous run.
  if (soleWriter) await clearAllHolds(store);
  // On a shared database: a heartbeat before any hold, and the holds of dead instances released now and every sweep.
  const lease = soleWriter ? undefined : new InstanceLease(store, config.holdLease);
  await lease?.start();
  if (opts.seed !== false) await seedCharacters(store);
  const engines = new EngineRegistry(config.catalogueVar);
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  const keyPrefix = `${config.redisPrefix}:rl`;
  const limiter = new RateLimiter(config.limits, { redis, keyPrefix });
  const abuse = new AbuseGuard(config.limits.abuse, { redis, keyPrefix });
  const ledger = new Ledger(store, { soleWriter, instanceId: lease?.id });
  // Jobs resume before the server answers: on SQLite their holds are taken again (after clearAllHolds above).
  const jobs = new JobService({
    store,
    ledger,
    limiter,
    limits: config.limits,
    redis,
    redisPrefix: config.redisPrefix,
    catalogue,
    config: config.jobs,
    wire: config.wire,
    fetchAllowHosts: config.fetchAllowHosts,
    soleWriter,
  });
  const catalogueDir = catalogueDirOf(config.modelsFile ?? DEFAULT_CATALOGUE);
  jobs.register(videoJobKind({ catalogueDir, vars: config.catalogueVar, maxResultBytes: config.jobs.mediaMaxBytes }));
  jobs.register(audioJobKind({ audio, maxCharacters: config.audio.queueMaxCharacters }));
  await jobs.start();
  const rpc = new RpcProxy(config.cryptoRpc, { store, ledger, limiter, redis, keyPrefix });
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
    lease,
    rpc,
    audio,
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
      // Chat's input_audio, for models that do not hear: the default transcription model writes it down.
      transcribeAudio: (data, format, ctx) =>
        transcribeForChat({ store, ledger, limiter, catalogue, wire: config.wire, fetchAllowHosts: config.fetchAllowHosts, audio }, ctx, data, format),
    },
    jobs,
    async close() {
      // Running jobs go back to the queue (another instance, or this one after its restart, takes them up).
      await jobs.stop().catch((e) => console.error('stopping the job workers failed:', e));
      await rpc.close();
      await audio.close();
      await imageEnginesFor(catalogue, config.catalogueVar).close();
      await ledger.drain();
      // Drained: whatever this instance still holds is orphaned, and the next sweep anywhere releases it.
      await lease?.stop().catch((e) => console.error('could not remove the instance heartbeat:', e));
      await engines.close();
      await store.close();
      if (redis) await closeRedis(redis);
      unlock();
    },
  };
}
