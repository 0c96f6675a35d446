// The composition root: everything a request handler needs, built once from the configuration. The API layer, the
// browser app's route handlers and the operator CLI all open the service through here.
import { searchProviderFrom } from './augment/search/from-env.ts';
import type { SearchProvider } from './augment/types.ts';
import { InstanceLease } from './billing/instance-lease.ts';
import { clearAllHolds } from './billing/ledger.ts';
import { RpcProxy } from './crypto-rpc/proxy.ts';
import { Ledger } from './billing/ledger-service.ts';
import { replayJournal, SettlementJournal } from './billing/settlement-journal.ts';
import { seedCharacters } from './characters/seed.ts';
import type { Config } from './config.ts';
import { lockDataDir } from './db/data-dir-lock.ts';
import { openStore } from './db/open.ts';
import type { Store } from './db/store.ts';
import { type Catalogue, DEFAULT_CATALOGUE, loadCatalogue } from './models/catalogue.ts';
import { EngineRegistry } from './engines/text/registry.ts';
import { EngineHealth } from './engines/health.ts';
import { dataDirSecretsKey, type SecretBox, secretBox } from './db/secret-box.ts';
import { OperatorCatalogue } from './models/operator-catalogue.ts';
import { catalogueDirOf, videoJobKind } from './video/kind.ts';
import { JobService } from './jobs/service.ts';
import { AudioEngines } from './engines/audio/registry.ts';
import { VideoEngines } from './engines/video/registry.ts';
import { IdempotencyStore } from './billing/idempotency.ts';
import { ReceiptHashLog } from './billing/receipts.ts';
import { countMetrics } from './metrics/registry.ts';
import { startTracing, stopTracing } from './metrics/tracing.ts';
import { audioJobKind } from './audio/jobs.ts';
import { ImageEngines } from './engines/images/registry.ts';
import { transcribeForChat } from './audio/transcription.ts';
import { AbuseGuard } from './limits/abuse.ts';
import { RateLimiter } from './limits/rate-limiter.ts';
import type { Redis } from 'ioredis';
import type { ChatDeps } from './chat/pipeline.ts';
import { closeRedis, connectRedis } from './limits/redis.ts';
import { WalletService } from './wallet/service.ts';
import { log, setLogLevel } from './log.ts';
import { E2eeWorkerLink } from './e2ee/worker-link.ts';
import { KnowledgeService } from './knowledge/service.ts';
import { knowledgeEmbedder } from './embeddings/knowledge.ts';
import { type AlertMailer, AlertService } from './alerts/service.ts';
import { smtpMailer } from './account/mailer.ts';

export interface Service {
  config: Config;
  store: Store;
  ledger: Ledger;
  catalogue: Catalogue;
  /** The operator's changes to the catalogue (added upstreams, disabled models, prices), applied without a restart. */
  operatorCatalogue: OperatorCatalogue;
  /** Seals secrets kept in the database (lib/db/secret-box.ts); undefined when there is no secrets key. */
  secrets: SecretBox | undefined;
  engines: EngineRegistry;
  /** Each engine's last check (lib/engines/health.ts): /readyz, /models and the 503 of a broken engine. */
  engineHealth: EngineHealth;
  limiter: RateLimiter;
  abuse: AbuseGuard;
  /** The web search provider (LAGOON_SEARCH_PROVIDER), when one is configured. */
  searchProvider: SearchProvider | undefined;
  /** Every configured provider, the default first (`/augment/search` picks one with `search_provider`). */
  searchProviders: SearchProvider[];
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
  /** Idempotency-Key claims of the billed POSTs (lib/http/billed.ts). */
  idempotency: IdempotencyStore;
  /** The billed requests' hashes for their receipts, written in batches. */
  receiptHashes: ReceiptHashLog;
  /** The engines of the catalogue's image models (generation, edits, upscaling, background removal). */
  imageEngines: ImageEngines;
  /** The engines of the catalogue's speech (tts) and transcription (asr) models. */
  audio: AudioEngines;
  /** The engines of the catalogue's video models, which the video job kind runs. */
  videoEngines: VideoEngines;
  /** Durable jobs (video; long audio registers its kind here too): queue, retrieve, complete, and the workers. */
  jobs: JobService;
  /** The E2EE worker that holds the key (lib/e2ee): a child started on first use, or LAGOON_E2EE_WORKER_URL. */
  e2ee: E2eeWorkerLink;
  /** Knowledge collections: uploads indexed in the background, full-text and vector search (lib/knowledge). */
  knowledge: KnowledgeService;
  /** Account alerts (low balance, key budgets) by email and signed webhook: evaluation after settlement, the outbox. */
  alerts: AlertService;
  /** The operator's SMTP transport (LAGOON_SMTP_URL); undefined: this server sends no mail. Team invitations use it. */
  mailer: AlertMailer | undefined;
  close(): Promise<void>;
}

export async function createService(config: Config, opts: { seed?: boolean } = {}): Promise<Service> {
  setLogLevel(config.logLevel);
  if (config.metrics.enabled) countMetrics();
  await startTracing(config.tracing, config.revision);
  const searchProviders = config.searchAll.map((c) => searchProviderFrom(c));
  const searchProvider = searchProviders[0];
  const catalogue = loadCatalogue(config.modelsFile ?? DEFAULT_CATALOGUE, config.catalogueVar, config.modelsExtra);
  for (const note of catalogue.notes ?? []) log.info({ event: 'catalogue' }, `catalogue: ${note}`);
  // Before the store opens: a catalogue whose audio models name the wrong engines stops the start here.
  const audio = new AudioEngines(catalogue, config.audio, config.catalogueVar);
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const soleWriter = store.kind === 'sqlite';
  const unlock = soleWriter ? lockDataDir(config.dataDir) : () => {};
  // With the data dir locked no request can be in flight, so every held amount is left over from a previous run.
  if (soleWriter) await clearAllHolds(store);
  // Settlements a previous run answered but had not committed are applied before anything else (settlement-journal.ts).
  let journal: SettlementJournal | undefined;
  if (soleWriter) {
    const file = SettlementJournal.in(config.dataDir);
    await replayJournal(store, file);
    journal = new SettlementJournal(file);
  }
  // On a shared database: a heartbeat before any hold, and the holds of dead instances released now and every sweep.
  const lease = soleWriter ? undefined : new InstanceLease(store, config.holdLease);
  await lease?.start();
  if (opts.seed !== false) await seedCharacters(store);
  // An added upstream's key is stored with the operator's change; the engine asks for it by its apiKeyEnv name.
  // Checked at start and every LAGOON_ENGINE_CHECK_MS; follows the catalogue as the operator changes it.
  const engineHealth = new EngineHealth(() => catalogue.models, {
    vars: (name: string): string | undefined => operatorCatalogue.storedKey(name) ?? config.catalogueVar(name),
    intervalMs: config.engineCheckMs,
  });
  const engines: EngineRegistry = new EngineRegistry(
    (name: string): string | undefined => operatorCatalogue.storedKey(name) ?? config.catalogueVar(name),
    engineHealth,
  );
  // Stored upstream keys are sealed: under LAGOON_SECRETS_KEY, or on the embedded store a key file beside the database.
  // Instances sharing PostgreSQL must share the key, so none is made up there.
  const secretsKey = config.secretsKey ?? (soleWriter ? dataDirSecretsKey(config.dataDir) : undefined);
  const secrets = secretsKey && secretBox(secretsKey);
  const operatorCatalogue: OperatorCatalogue = new OperatorCatalogue(store, catalogue, (ids) => engines.forget(ids), secrets);
  await operatorCatalogue.refresh();
  // Image, audio and queued (video, long audio) requests are refused the same way while their engine is down.
  const imageEngines = new ImageEngines(config.catalogueVar);
  imageEngines.gateWith((id) => engineHealth.refusal(id));
  audio.gateWith((id) => engineHealth.refusal(id));
  await engineHealth.start();
  if (!soleWriter) operatorCatalogue.start(config.catalogueRefreshMs);
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  const keyPrefix = `${config.redisPrefix}:rl`;
  const limiter = new RateLimiter(config.limits, { redis, keyPrefix });
  const abuse = new AbuseGuard(config.limits.abuse, { redis, keyPrefix });
  const ledger = new Ledger(store, { soleWriter, instanceId: lease?.id, journal });
  // Jobs resume before the server answers: on SQLite their holds are taken again (after clearAllHolds above).
  const jobs = new JobService({
    store,
    ledger,
    limiter,
    limits: config.limits,
    redis,
    redisPrefix: config.redisPrefix,
    databaseUrl: config.databaseUrl,
    catalogue,
    config: config.jobs,
    wire: config.wire,
    fetchAllowHosts: config.fetchAllowHosts,
    soleWriter,
    refusal: (id) => engineHealth.refusal(id),
  });
  const catalogueDir = catalogueDirOf(config.modelsFile ?? DEFAULT_CATALOGUE);
  const videoEngines = new VideoEngines({ catalogueDir, vars: config.catalogueVar, maxResultBytes: config.jobs.mediaMaxBytes });
  jobs.register(videoJobKind({ engines: videoEngines }));
  jobs.register(audioJobKind({ audio, maxCharacters: config.audio.queueMaxCharacters }));
  await jobs.start();
  const rpc = new RpcProxy(config.cryptoRpc, { store, ledger, limiter, redis, keyPrefix });
  const e2ee = new E2eeWorkerLink(config.e2ee);
  const receiptHashes = new ReceiptHashLog(store);
  // Passages and questions are embedded through the embeddings pipeline, billed to the user who uploads or asks.
  const knowledge = new KnowledgeService({
    store,
    embedder: knowledgeEmbedder({ store, ledger, limiter, catalogue, engines, wire: config.wire }),
    pollMs: config.jobs.pollMs,
  });
  knowledge.start();
  // Alerts are evaluated after a settlement commits, never on its path: the ledger only names the account.
  const mailer = config.app.mail && smtpMailer(config.app.mail);
  const alerts = new AlertService({ store, config: config.alerts, mailer, secrets, fetchAllowHosts: config.fetchAllowHosts });
  ledger.onSettled((accountId) => alerts.nudge(accountId));
  alerts.start();
  const wallet = new WalletService(store, ledger, config, secrets || undefined);
  // Auto top-ups are checked after a settlement commits, like alerts; only where a Base rail can settle them.
  if (config.wallet.rails.evm) {
    ledger.onSettled((accountId) => wallet.autoTopUps.nudge(accountId));
    wallet.autoTopUps.start();
    // `upto` payments left half done by a process that died are finished at start and on every sweep.
    wallet.uptoRecovery.start();
  }
  return {
    config,
    store,
    ledger,
    catalogue,
    operatorCatalogue,
    secrets,
    engines,
    engineHealth,
    limiter,
    abuse,
    searchProvider,
    searchProviders,
    searchAvailable: searchProvider !== undefined,
    redis,
    lease,
    rpc,
    // A running owner touches its claim every 15 s, so an instance that died frees its keys within a minute; a
    // duplicate waits up to 10 minutes for a long generation to finish, then replays it.
    idempotency: new IdempotencyStore(store, { staleMs: 60_000, heartbeatMs: 15_000, waitMs: 10 * 60_000 }),
    receiptHashes,
    audio,
    imageEngines,
    videoEngines,
    wallet,
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
    e2ee,
    knowledge,
    alerts,
    mailer,
    async close() {
      // Running jobs go back to the queue (another instance, or this one after its restart, takes them up).
      await jobs.stop().catch((e) => log.error({ err: e }, 'stopping the job workers failed'));
      await knowledge.stop().catch((e) => log.error({ err: e }, 'stopping the knowledge indexer failed'));
      operatorCatalogue.stop();
      await rpc.close();
      await e2ee.close();
      await audio.close();
      await imageEngines.close();
      await videoEngines.close();
      await ledger.drain();
      await alerts.stop().catch((e) => log.error({ err: e }, 'stopping the alerts failed'));
      await wallet.autoTopUps.stop().catch((e) => log.error({ err: e }, 'stopping the auto top-ups failed'));
      await wallet.uptoRecovery.stop().catch((e) => log.error({ err: e }, 'stopping the upto recovery failed'));
      mailer?.close();
      await receiptHashes.flush();
      journal?.close();
      // Drained: whatever this instance still holds is orphaned, and the next sweep anywhere releases it.
      await lease?.stop().catch((e) => log.error({ err: e }, 'could not remove the instance heartbeat'));
      engineHealth.stop();
      await engines.close();
      await store.close();
      if (redis) await closeRedis(redis);
      unlock();
      await stopTracing().catch((e) => log.error({ err: e }, 'could not send the last traces'));
    },
  };
}
