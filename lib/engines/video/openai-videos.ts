// The OpenAI videos API as an upstream (catalogue kind `openai-videos`): POST /videos (multipart: model, prompt,
// seconds, size, input_reference), then GET /videos/{id} every pollMs until `completed` or `failed`, then
// GET /videos/{id}/content for the MP4. The upstream's id is checkpointed with the job, so an attempt that takes over
// after a crash follows the same upstream video instead of paying for a second one. A cancelled or timed-out job
// deletes its upstream video (best effort).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { JobOutput, RunContext } from '../../jobs/types.ts';
import { isHandedOver, JobFailure } from '../../jobs/types.ts';
import type { ModelEntry } from '../../models/schema.ts';
import type { VideoEngineSpec } from '../../models/video-models.ts';
import { probe, toMp4 } from './ffmpeg.ts';
import type { VideoRequest } from './request.ts';
import { bearer, callJson, download, sleep } from './upstream-http.ts';

type Spec = Extract<VideoEngineSpec, { kind: 'openai-videos' }>;

interface UpstreamVideo {
  id: string;
  status: 'queued' | 'in_progress' | 'completed' | 'failed';
  seconds?: string;
  error?: { code?: string; message?: string } | null;
}

const CONTENT_POLICY = /moderation|content_policy|safety|policy_violation/i;

function failureOf(v: UpstreamVideo): JobFailure {
  const code = v.error?.code ?? '';
  const message = v.error?.message ?? 'the upstream failed to generate the video';
  return new JobFailure(CONTENT_POLICY.test(code) ? 'content_policy' : 'failed', `The video upstream failed: ${message}${code ? ` (${code})` : ''}`);
}

/** An error answer as a failure, with the upstream's own message when it sent one. */
function refused(what: string, status: number, json: any): JobFailure {
  const e = json?.error;
  const message = typeof e === 'string' ? e : (e?.message ?? `HTTP ${status}`);
  return new JobFailure(CONTENT_POLICY.test(String(e?.code ?? e?.type ?? '')) ? 'content_policy' : 'failed', `The video upstream refused ${what}: ${message}`);
}

export async function runOpenAIVideos(
  model: ModelEntry,
  spec: Spec,
  req: VideoRequest,
  ctx: RunContext,
  opts: { state: unknown; vars: (name: string) => string | undefined; maxBytes: number },
): Promise<JobOutput> {
  const base = spec.baseUrl.replace(/\/+$/, '');
  const auth = bearer(spec.apiKeyEnv, opts.vars);
  const size = spec.sizes?.[`${req.aspect_ratio}@${req.resolution}`] ?? `${req.width}x${req.height}`;
  let id = (opts.state as { upstreamId?: string } | undefined)?.upstreamId;
  if (!id) {
    const form = new FormData();
    form.set('model', spec.model ?? model.id);
    form.set('prompt', req.prompt);
    form.set('seconds', String(req.seconds));
    form.set('size', size);
    const image = req.inputs.image;
    if (image) form.set('input_reference', new Blob([await fs.readFile(image.path)], { type: image.contentType }), path.basename(image.path));
    const r = await callJson(`${base}/videos`, { method: 'POST', headers: auth, body: form, signal: ctx.signal });
    if (r.status !== 200 || typeof r.json?.id !== 'string') throw refused('the video', r.status, r.json);
    id = r.json.id as string;
    await ctx.checkpoint({ upstreamId: id });
  }
  const videoUrl = `${base}/videos/${encodeURIComponent(id)}`;
  try {
    let video: UpstreamVideo;
    for (;;) {
      const r = await callJson(videoUrl, { headers: auth, signal: ctx.signal });
      if (r.status === 404) throw new JobFailure('failed', 'The video upstream no longer knows the video');
      if (r.status === 200 && r.json?.status) {
        video = r.json as UpstreamVideo;
        if (video.status === 'failed') throw failureOf(video);
        if (video.status === 'completed') break;
      } else if (r.status < 500 && r.status !== 429) throw refused('the status request', r.status, r.json);
      await sleep(spec.pollMs ?? 5_000, ctx.signal);
    }
    const file = path.join(ctx.workDir, 'upstream.mp4');
    const got = await download(`${videoUrl}/content`, file, { headers: auth, signal: ctx.signal, maxBytes: opts.maxBytes });
    const info = await probe(file, ctx.signal).catch(() => undefined);
    if (!info?.streams.some((s) => s.codec_type === 'video')) throw new JobFailure('failed', 'The video upstream sent a result that is not a video');
    let output = file;
    if (got.contentType !== 'video/mp4' || !info.streams.some((s) => s.codec_name === 'h264')) {
      output = path.join(ctx.workDir, 'converted.mp4');
      await toMp4(file, output, ctx.signal);
    }
    // Billed by what came back, never more than was asked (and held).
    const seconds = Math.min(req.seconds, Math.max(1, Math.ceil(Number(video.seconds) || info.duration || req.seconds)));
    return { file: output, contentType: 'video/mp4', quantities: { seconds } };
  } catch (e) {
    // Stopped for good (cancelled, timed out, failed): the upstream video is not needed any more.
    if (!(ctx.signal.aborted && isHandedOver(ctx.signal.reason))) {
      void callJson(videoUrl, { method: 'DELETE', headers: auth, signal: AbortSignal.timeout(10_000), timeoutMs: 10_000 }).catch(() => {});
    }
    throw e;
  }
}
