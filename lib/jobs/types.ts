// Durable jobs: work that outlives its request (video now, long audio next). A client quotes, queues (the quote is
// held on its balance), polls `retrieve` (JSON progress, then the media bytes) and calls `complete` (the media are
// deleted). Jobs live in the store's `jobs` table, so they survive restarts and are shared by every instance on one
// database: workers claim them under a lease (FOR UPDATE SKIP LOCKED on PostgreSQL), renew it while they work, and a
// job whose worker died is taken over once its lease runs out. The hold is settled once on success and released
// once on failure, cancellation or expiry, whichever instance gets there (lib/jobs/billing.ts).
//
// The machinery (store, billing, media, workers, the quote/queue/retrieve/complete semantics, the HTTP handlers in
// lib/jobs/api-routes.ts) is written once; a *kind* supplies what is particular to it, through `JobKind` below.
//
// How to add a kind (long audio, say):
//   1. Write `audioJobKind(deps): JobKind<AudioRequest>` next to its engines (lib/audio/jobs.ts): the model
//      types it serves, its queue and quote bodies (zod, strict), the quantities to hold, and `run`, which produces
//      one media file (throw `JobFailure` for a failure the client should hear about; credits are refunded).
//   2. Register it in lib/service.ts: `jobs.register(audioJobKind(...))` (before `jobs.start()`).
//   3. Routes: `const audio = jobRoutes('audio')` (lib/jobs/api-routes.ts), and in lib/http/api.ts
//      `/audio/quote` (auth key, limit api), `/audio/queue`, `/audio/retrieve`, `/audio/complete` (auth caller,
//      limit model) on `audio.quote`, `audio.queue`, `audio.retrieve`, `audio.complete`.
// Nothing else changes: the jobs table, billing, leases, retention and the tests' helpers are shared.
import type { Quantities, Unit } from '../billing/pricing.ts';
import type { LimitConfig } from '../limits/config.ts';
import type { ModelEntry, ModelType } from '../models/schema.ts';
import type { WireNames } from '../api/wire.ts';

/** What a kind's `prepare` gives back: the request to store (JSON) and the worst case to hold. */
export interface Prepared<Req> {
  /** Stored as JSON with the job and handed to `run` (on whichever instance runs it, maybe after a restart). */
  request: Req;
  /** The most the job can bill: the hold, and the same quantities `quote` prices. */
  estimate: Quantities;
  /** What `validate` found for `prepare` to fetch (URLs by field); never stored. */
  pending?: Record<string, string>;
}

/** Fetches a URL the client gave (data: or http(s) through the safe fetcher) into the job's inputs folder. */
export type FetchReference = (
  url: string,
  opts: { field: string; maxBytes: number /** Accepted media types, e.g. ['image/'] (prefixes). */; accept: string[] },
) => Promise<{ path: string; contentType: string; bytes: number }>;

export interface PrepareContext {
  wire: WireNames;
  /** Files fetched here live until the job ends, in a folder every instance can read. */
  fetchReference: FetchReference;
  signal: AbortSignal;
}

/** A job as its runner sees it. */
export interface RunningJob<Req> {
  id: string;
  model: ModelEntry;
  request: Req;
  /** Which attempt this is (1 for the first; more after a takeover or a restart). */
  attempt: number;
  /** What an earlier attempt saved with `checkpoint` (e.g. an upstream's job id, so a takeover resumes it). */
  state: unknown;
}

export interface RunContext {
  /**
   * Aborts on timeout, cancellation (complete), a lost lease, or a graceful stop. The reason is a `JobFailure` when
   * the job is over for good (timeout, cancelled: upstream work may be deleted); otherwise the job goes on in another
   * attempt (`isHandedOver(reason)`), which may resume upstream work from the checkpoint.
   */
  signal: AbortSignal;
  /** A scratch folder on the media volume for this attempt; the output file is written here. */
  workDir: string;
  /** Saves state with the job (one small JSON value), for a later attempt to resume from. */
  checkpoint(state: unknown): Promise<void>;
}

export interface JobOutput {
  /** The produced file (in `workDir`); it is moved into media storage. */
  file: string;
  /** Its media type, served by retrieve (`video/mp4`, `audio/mpeg`…). */
  contentType: string;
  /** What was produced, billed at the model's prices (never more than the estimate). */
  quantities: Quantities;
}

export interface JobKind<Req = unknown> {
  /** `video`, `audio`: the kind stored with each job and the word in messages. */
  readonly name: string;
  /** Catalogue model types this kind serves (`video`; long audio: its own). */
  readonly modelTypes: readonly ModelType[];
  /** The usage row's endpoint (e.g. `/video/queue`) and unit (e.g. `second`). */
  readonly endpoint: string;
  readonly unit: Unit;
  /** Extra fields of the queue answer besides `model` and `queue_id` (audio: `{ status: 'QUEUED' }`). */
  readonly queuedFields?: Record<string, unknown>;
  /** The quote body (its `model` resolved already) → the quantities priced. Throws the 400 of a bad body. */
  quote(body: unknown, model: ModelEntry, wire: WireNames): Quantities;
  /** Validates the queue body for the model (the cheap checks; nothing fetched): 400 when it is wrong. */
  validate(body: unknown, model: ModelEntry, wire: WireNames): Prepared<Req>;
  /** Fetches what the request references (images, audio…) and returns the request to store. Runs after `validate`. */
  prepare(prepared: Prepared<Req>, model: ModelEntry, ctx: PrepareContext): Promise<Prepared<Req>>;
  /** Does the work once; throws `JobFailure` (or anything: a generic failure) when it cannot. */
  run(job: RunningJob<Req>, ctx: RunContext): Promise<JobOutput>;
  /** The longest one attempt may run; past it the job fails and its credit is refunded. */
  timeoutMs(model: ModelEntry): number;
  /** How long a job of this model is expected to take before it has finished any (recent runs' P80 replace it). */
  expectedMs(model: ModelEntry, request: Req): number;
  /** The rate limits that apply to retrieve and complete: the configuration with this kind's retrieve figures in place. */
  retrieveLimits(limits: LimitConfig): LimitConfig;
}

/** Why a job failed, as the client hears it on retrieve (always with `credits_refunded: true`). */
export type FailureCode = 'content_policy' | 'failed' | 'timeout' | 'cancelled' | 'interrupted';

/** A failure a runner reports; anything else thrown counts as `failed` with a generic message. */
export class JobFailure extends Error {
  readonly code: FailureCode;
  constructor(code: FailureCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** The abort reasons of an attempt whose job goes on elsewhere: its lease was lost, or the server is stopping. */
export const LEASE_LOST = Symbol('lease lost');
export const STOPPING = Symbol('stopping');
export const isHandedOver = (reason: unknown): boolean => reason === LEASE_LOST || reason === STOPPING;
