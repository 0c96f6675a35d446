// ComfyUI video workflows as an upstream (catalogue kind `comfyui-video`): the model's API-format workflow file, its
// placeholders filled in, goes to POST /prompt; GET /history/{prompt_id} is polled until the prompt finished; the
// first video among its outputs (SaveVideo's `images`, VideoHelperSuite's `gifs`, or `videos`) comes from /view.
// References are uploaded first (POST /upload/image, which takes any file into ComfyUI's input folder). The prompt
// id is checkpointed, so an attempt that takes over follows the same prompt; a cancelled or timed-out job deletes it
// from ComfyUI's queue and interrupts it (best effort).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { JobOutput, RunContext } from '../../jobs/types.ts';
import { isHandedOver, JobFailure } from '../../jobs/types.ts';
import type { VideoEngineSpec } from '../../models/video-models.ts';
import { probe, toMp4 } from './ffmpeg.ts';
import type { VideoRequest } from './request.ts';
import { bearer, callJson, download, sleep } from './upstream-http.ts';
import { log } from '../../log.ts';

type Spec = Extract<VideoEngineSpec, { kind: 'comfyui-video' }>;

export const DEFAULT_FPS = 24;
const VIDEO_FILE = /\.(mp4|webm|mov|mkv|gif|webp)$/i;

/** Where the workflow file is: relative to the catalogue file, with `${VAR}`s from the environment captured at start. */
export function workflowPath(file: string, catalogueDir: string, vars: (name: string) => string | undefined): string {
  const expanded = file.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => {
    const v = vars(name);
    if (v === undefined) throw new JobFailure('failed', `The workflow path names \${${name}}, which is not set`);
    return v;
  });
  return path.resolve(catalogueDir, expanded);
}

/**
 * The workflow with its placeholders filled in: a string that is exactly `{{name}}` becomes the value itself (a
 * number stays a number), and `{{name}}` inside a longer string is replaced by its text. Unknown names stay as they are.
 */
export function fillWorkflow(node: unknown, values: Record<string, string | number>): unknown {
  if (typeof node === 'string') {
    const whole = /^\{\{(\w+)\}\}$/.exec(node);
    if (whole && Object.hasOwn(values, whole[1])) return values[whole[1]];
    return node.replace(/\{\{(\w+)\}\}/g, (m, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : m));
  }
  if (Array.isArray(node)) return node.map((n) => fillWorkflow(n, values));
  if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, fillWorkflow(v, values)]));
  return node;
}

interface OutputFile {
  filename: string;
  subfolder?: string;
  type?: string;
}

/** The first video file among a finished prompt's outputs. */
function videoOutput(outputs: Record<string, Record<string, unknown>>): OutputFile | undefined {
  for (const node of Object.values(outputs ?? {})) {
    for (const key of ['videos', 'gifs', 'images']) {
      const files = node?.[key];
      if (!Array.isArray(files)) continue;
      const hit = files.find((f: OutputFile) => typeof f?.filename === 'string' && VIDEO_FILE.test(f.filename));
      if (hit) return hit;
    }
  }
  return undefined;
}

export async function runComfyVideo(
  spec: Spec,
  req: VideoRequest,
  ctx: RunContext,
  opts: { jobId: string; state: unknown; catalogueDir: string; vars: (name: string) => string | undefined; maxBytes: number },
): Promise<JobOutput> {
  const base = spec.baseUrl.replace(/\/+$/, '');
  const auth = bearer(spec.apiKeyEnv, opts.vars);
  const fps = spec.fps ?? DEFAULT_FPS;
  let promptId = (opts.state as { promptId?: string } | undefined)?.promptId;
  if (!promptId) {
    let template: unknown;
    try {
      template = JSON.parse(await fs.readFile(workflowPath(spec.workflow, opts.catalogueDir, opts.vars), 'utf8'));
    } catch (e) {
      if (e instanceof JobFailure) throw e;
      log.error({ err: e }, `comfyui video: the workflow ${spec.workflow} cannot be read`);
      throw new JobFailure('failed', 'The video workflow is not available on this server');
    }
    const values: Record<string, string | number> = {
      prompt: req.prompt,
      negative_prompt: req.negative_prompt ?? '',
      seed: req.seed >>> 0,
      width: req.width,
      height: req.height,
      fps,
      duration: req.seconds,
      frames: req.seconds * fps,
      filename_prefix: `lagoon-${opts.jobId}`,
    };
    for (const [input, stored] of Object.entries(req.inputs)) values[input] = await upload(base, auth, stored!.path, ctx.signal);
    const r = await callJson(`${base}/prompt`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: fillWorkflow(template, values), client_id: `lagoon-${randomUUID()}` }),
      signal: ctx.signal,
    });
    if (r.status !== 200 || typeof r.json?.prompt_id !== 'string') {
      const why = r.json?.error?.message ?? r.json?.error ?? `HTTP ${r.status}`;
      throw new JobFailure('failed', `ComfyUI refused the workflow: ${typeof why === 'string' ? why : JSON.stringify(why)}`);
    }
    promptId = r.json.prompt_id as string;
    await ctx.checkpoint({ promptId });
  }
  try {
    let outputs: Record<string, Record<string, unknown>>;
    for (;;) {
      const r = await callJson(`${base}/history/${encodeURIComponent(promptId)}`, { headers: auth, signal: ctx.signal });
      const entry = r.status === 200 ? r.json?.[promptId] : undefined;
      const status = entry?.status;
      if (status?.status_str === 'error') {
        const message = (status.messages as [string, Record<string, unknown>][] | undefined)?.find(([kind]) => kind === 'execution_error')?.[1]
          ?.exception_message;
        throw new JobFailure('failed', `The ComfyUI workflow failed${message ? `: ${String(message).slice(0, 300)}` : ''}`);
      }
      if (entry && (status?.completed === true || status?.status_str === 'success')) {
        outputs = entry.outputs ?? {};
        break;
      }
      await sleep(spec.pollMs ?? 1_000, ctx.signal);
    }
    const out = videoOutput(outputs);
    if (!out) throw new JobFailure('failed', 'The ComfyUI workflow finished without a video output');
    const query = new URLSearchParams({ filename: out.filename, subfolder: out.subfolder ?? '', type: out.type ?? 'output' });
    const file = path.join(ctx.workDir, `comfy-${path.basename(out.filename)}`);
    await download(`${base}/view?${query}`, file, { headers: auth, signal: ctx.signal, maxBytes: opts.maxBytes });
    const info = await probe(file, ctx.signal).catch(() => undefined);
    if (!info?.streams.some((s) => s.codec_type === 'video')) throw new JobFailure('failed', 'The ComfyUI workflow produced a file that is not a video');
    let output = file;
    if (!/\.mp4$/i.test(file) || !info.streams.some((s) => s.codec_name === 'h264')) {
      output = path.join(ctx.workDir, 'converted.mp4');
      await toMp4(file, output, ctx.signal);
    }
    const seconds = Math.min(req.seconds, Math.max(1, Math.ceil(info.duration || req.seconds)));
    return { file: output, contentType: 'video/mp4', quantities: { seconds } };
  } catch (e) {
    if (!(ctx.signal.aborted && isHandedOver(ctx.signal.reason))) void forget(base, auth, promptId);
    throw e;
  }
}

/** Uploads a reference into ComfyUI's input folder; its name goes into the workflow. */
async function upload(base: string, auth: Record<string, string>, file: string, signal: AbortSignal): Promise<string> {
  const form = new FormData();
  form.set('image', new Blob([await fs.readFile(file)]), `lagoon-${randomUUID()}${path.extname(file)}`);
  form.set('type', 'input');
  form.set('overwrite', 'true');
  const r = await callJson(`${base}/upload/image`, { method: 'POST', headers: auth, body: form, signal });
  if (r.status !== 200 || typeof r.json?.name !== 'string') throw new JobFailure('failed', `ComfyUI refused an input upload (HTTP ${r.status})`);
  return r.json.subfolder ? `${r.json.subfolder}/${r.json.name}` : r.json.name;
}

/** Takes the prompt out of ComfyUI's queue, or interrupts it if it is running (best effort). */
async function forget(base: string, auth: Record<string, string>, promptId: string): Promise<void> {
  const signal = AbortSignal.timeout(10_000);
  const headers = { ...auth, 'content-type': 'application/json' };
  await callJson(`${base}/queue`, { method: 'POST', headers, body: JSON.stringify({ delete: [promptId] }), signal }).catch(() => {});
  await callJson(`${base}/interrupt`, { method: 'POST', headers, body: JSON.stringify({ prompt_id: promptId }), signal }).catch(() => {});
}
