// The video page's routes (shapes: lib/video/wire.ts). The signed-in user acts through the principal of the
// account's server-held browser key, so a queue here is POST /api/v1/video/queue for that account: the same
// validation, per-model rate limit, cap on jobs at once, hold of the quote and bill (lib/jobs/service.ts). The list
// comes from the jobs table, so it survives reloads and restarts; another account's job is as unknown as a made-up
// id (404). Clips stream from the media store with Range support, so the browser's <video> can seek.
import fs from 'node:fs/promises';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { parseOrThrow } from '../api/validation.ts';
import type { JobCaller, JobSummary } from '../jobs/service.ts';
import type { ModelEntry } from '../models/schema.ts';
import { videoLimits } from '../models/video-models.ts';
import { principalForUser, type User } from '../users/users.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent } from '../http/app-route.ts';
import type { AppVideoJob, AppVideoModel, VideoJobsReport, VideoModelsReport, VideoQuote } from './wire.ts';
import { isRemote } from '../catalogue/sources.ts';
import { contentDisposition, fileStem } from '../conversations/app-download.ts';

const KIND = 'video';
const BODY_LIMIT = 64 * 1024;
const LIST_LIMIT = 50;
/** Job ids are UUIDs; anything else is unknown without asking the database. */
const JOB_ID = /^[0-9a-f-]{36}$/i;

const queueBody = z.strictObject({
  model: z.string().min(1).max(200),
  prompt: z
    .string()
    .max(20_000)
    .refine((s) => s.trim().length > 0, 'prompt is empty: describe the clip'),
  duration: z.number().int('duration is a whole number of seconds'),
  aspect_ratio: z.string().min(1).max(16).optional(),
  resolution: z.string().min(1).max(16).optional(),
  audio: z.boolean().optional(),
});

const quoteQuery = z.strictObject({
  model: z.string().min(1).max(200),
  duration: z
    .string()
    .regex(/^\d{1,3}$/, 'duration is a whole number of seconds')
    .transform(Number),
  aspect_ratio: z.string().min(1).max(16).optional(),
  resolution: z.string().min(1).max(16).optional(),
  audio: z.enum(['true', 'false']).optional(),
});

// Request ids in the API layer's shape (24 hex characters, time first).

const notFound = (id: string) => new ApiError('NOT_FOUND', `No video ${JSON.stringify(id.slice(0, 100))}: unknown, expired or deleted`, { param: 'id' });

function modelToApp(m: ModelEntry, isDefault: boolean): AppVideoModel {
  const v = videoLimits(m);
  return {
    id: m.id,
    name: m.name,
    description: m.description ?? null,
    demo: m.demo ?? false,
    isDefault,
    perSecondUsd: m.pricing.per_second_usd ?? null,
    durations: [...v.durations],
    defaultDuration: v.default_duration,
    resolutions: [...v.resolutions],
    defaultResolution: v.default_resolution,
    aspectRatios: [...v.aspect_ratios],
    defaultAspectRatio: v.default_aspect_ratio,
    audio: v.audio,
    promptCharacterLimit: v.prompt_character_limit,
  };
}

const mediaPath = (id: string) => `/api/app/video/jobs/${encodeURIComponent(id)}/media`;

function jobToApp(j: JobSummary, modelName: string | undefined): AppVideoJob {
  const r = j.request as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const num = (v: unknown) => (typeof v === 'number' ? v : 0);
  const done = j.status === 'succeeded';
  return {
    id: j.queue_id,
    model: j.model,
    modelName: modelName ?? j.model,
    status: j.status,
    createdAt: j.created_at,
    finishedAt: j.finished_at,
    executionDuration: j.execution_duration,
    averageExecutionTime: j.average_execution_time,
    prompt: str(r.prompt),
    seconds: num(r.seconds),
    aspectRatio: str(r.aspect_ratio),
    resolution: str(r.resolution),
    width: num(r.width),
    height: num(r.height),
    audio: r.audio === true,
    mediaType: j.media_type,
    mediaBytes: j.media_bytes,
    error: j.error && { code: j.error.code, message: j.error.message },
    mediaUrl: done ? mediaPath(j.queue_id) : null,
    downloadUrl: done ? `${mediaPath(j.queue_id)}?download=1` : null,
  };
}

/** One `bytes=` range of a file of `size` bytes; undefined for none or one we ignore (several ranges: the whole file). */
export function parseRange(header: string | null, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const m = header ? /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header) : null;
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    return suffix > 0 && size > 0 ? { start: Math.max(0, size - suffix), end: size - 1 } : 'unsatisfiable';
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  return start < size && start <= end ? { start, end } : 'unsatisfiable';
}

export function videoRoutes(deps: AppDeps) {
  const { svc } = deps;
  const remote = isRemote(deps);
  const unavailable = () =>
    remote
      ? "Video is not available in this app: its inference comes from an external API, and videos are made by this server's own engines."
      : svc.catalogue.models.some((m) => m.type === 'video')
        ? null
        : 'This server offers no video model: its operator adds one to the model catalogue.';
  const refuseUnavailable = () => {
    const why = unavailable();
    if (why) throw new ApiError('NOT_FOUND', why);
  };

  const callerFor = async (user: User, { requestId, signal }: { requestId: string; signal: AbortSignal }): Promise<JobCaller> => ({
    principal: await principalForUser(svc.store, user),
    requestId,
    responseHeaders: {},
    signal,
  });

  /** The user's job `id` (not deleted), or 404. */
  async function ownedJob(caller: JobCaller, id: string) {
    const job = JOB_ID.test(id) ? await svc.jobs.jobs.get(id) : undefined;
    if (!job || job.kind !== KIND || job.account_id !== caller.principal.accountId || job.deleted_at !== null) throw notFound(id);
    return job;
  }

  const list = async (accountId: string) => (await svc.jobs.list(KIND, accountId, LIST_LIMIT)).map((j) => jobToApp(j, svc.catalogue.byId.get(j.model)?.name));

  return {
    videoModels: appRoute(deps, 'session', async () => {
      const why = unavailable();
      const models = why ? [] : svc.catalogue.models.filter((m) => m.type === 'video');
      const fallback = models.find((m) => m.traits.includes('default')) ?? models[0];
      const body: VideoModelsReport = { models: models.map((m) => modelToApp(m, m === fallback)), unavailable: why };
      return json(body);
    }),

    videoQuote: appRoute(deps, 'session', async ({ req }) => {
      refuseUnavailable();
      const q = parseOrThrow(quoteQuery, Object.fromEntries(new URL(req.url).searchParams), svc.config.wire);
      const { audio, ...rest } = q;
      const body: VideoQuote = { usd: svc.jobs.quote(KIND, { ...rest, ...(audio ? { audio: audio === 'true' } : {}) }).quote };
      return json(body);
    }),

    listVideoJobs: appRoute(deps, 'session', async ({ req, requestId, session: { user } }) => {
      const caller = await callerFor(user, { requestId, signal: req.signal });
      const body: VideoJobsReport = { jobs: await list(caller.principal.accountId), retentionMs: svc.config.jobs.retentionMs };
      return json(body);
    }),

    queueVideo: appRoute(deps, { auth: 'session+csrf', body: queueBody, bodyLimit: BODY_LIMIT }, async ({ req, requestId, session: { user }, body }) => {
      refuseUnavailable();
      const caller = await callerFor(user, { requestId, signal: req.signal });
      const queued = await svc.jobs.queue(KIND, caller, body);
      const id = String(queued.body.queue_id);
      const job = (await list(caller.principal.accountId)).find((j) => j.id === id);
      if (!job) throw notFound(id); // completed by another tab between the two statements
      return json({ job }, 201);
    }),

    videoMedia: appRoute(deps, 'session', async ({ req, requestId, params, session: { user } }) => {
      const caller = await callerFor(user, { requestId, signal: req.signal });
      const job = await ownedJob(caller, params.id);
      if (job.status !== 'succeeded')
        throw new ApiError('NOT_FOUND', job.status === 'failed' ? 'This video failed: there is no clip' : 'The video is not ready yet', { param: 'id' });
      // The API's retrieve: the kind's retrieve rate limit, and the file once the job is done.
      const r = await svc.jobs.retrieve(KIND, caller, { model: job.model_id, queue_id: job.id });
      if (r.status === 'processing') throw new ApiError('NOT_FOUND', 'The video is not ready yet', { param: 'id' });
      const file = await fs.open(r.file).catch(() => undefined);
      if (!file) {
        await r.gone();
        throw notFound(job.id);
      }
      let size: number;
      try {
        size = (await file.stat()).size;
      } catch (e) {
        await file.close();
        throw e;
      }
      const url = new URL(req.url);
      const headers: Record<string, string> = { 'content-type': r.contentType, 'accept-ranges': 'bytes', 'cache-control': 'private, no-store' };
      if (url.searchParams.get('download') === '1') {
        const ext = r.contentType === 'video/webm' ? 'webm' : 'mp4';
        headers['content-disposition'] = contentDisposition(fileStem(JSON.parse(job.request).prompt ?? '', 'video'), ext, { fallback: 'video' });
      }
      const range = parseRange(req.headers.get('range'), size);
      if (range === 'unsatisfiable') {
        await file.close();
        const err = new ApiError('INVALID_REQUEST', `The range is outside the video's ${size} bytes`, { param: 'range' });
        return json(err.toBody(), 416, { 'content-range': `bytes */${size}` });
      }
      const { start, end } = range ?? { start: 0, end: size - 1 };
      if (size === 0) {
        await file.close();
        return new Response(null, { status: 200, headers: { ...headers, 'content-length': '0' } });
      }
      const stream = Readable.toWeb(file.createReadStream({ start, end })) as ReadableStream<Uint8Array>;
      headers['content-length'] = String(end - start + 1);
      if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`;
      return new Response(stream, { status: range ? 206 : 200, headers });
    }),

    deleteVideoJob: appRoute(deps, 'session+csrf', async ({ req, requestId, params, session: { user } }) => {
      const caller = await callerFor(user, { requestId, signal: req.signal });
      const job = await ownedJob(caller, params.id);
      // The API's complete: deletes the clip; a job still queued or running is cancelled and its hold released.
      await svc.jobs.complete(KIND, caller, { model: job.model_id, queue_id: job.id });
      return noContent();
    }),
  };
}
