// Loopback fakes of the video upstreams, speaking their real protocols, for the video tests:
//  - the OpenAI videos API: POST /v1/videos (multipart), GET /v1/videos/{id}, GET /v1/videos/{id}/content,
//    DELETE /v1/videos/{id};
//  - ComfyUI: POST /upload/image, POST /prompt, GET /history/{id}, GET /view, POST /queue, POST /interrupt.
// The videos they return are real MP4s (ffmpeg's test pattern at the size and length asked for). What a job does is
// scripted by markers in its prompt: `[[fail]]` (a moderation refusal), `[[error]]` (a generic failure), `[[hang]]`
// (never finishes), `[[hold]]` (finishes when the test calls `release`). Every request is recorded.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

const clips = new Map<string, Promise<Buffer>>();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-fake-video-'));
process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

/** A real clip of this size and length (cached): what a video upstream would send. */
export function testClip(width: number, height: number, seconds: number, format: 'mp4' | 'webm' = 'mp4'): Promise<Buffer> {
  const id = `${width}x${height}-${seconds}.${format}`;
  let clip = clips.get(id);
  if (!clip) {
    const file = path.join(tmp, id);
    const codec = format === 'mp4' ? ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'] : ['-c:v', 'libvpx', '-deadline', 'realtime'];
    clip = run('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      `testsrc2=size=${width}x${height}:rate=12:duration=${seconds}`,
      ...codec,
      file,
    ]).then(() => fs.readFileSync(file));
    clips.set(id, clip);
  }
  return clip;
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function formOf(req: http.IncomingMessage, body: Buffer): Promise<FormData> {
  return new Request('http://fake/', { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? '' }, body: new Uint8Array(body) }).formData();
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** On `port` when given (a test restarting an upstream where the catalogue points), else on any free one. */
async function listen(server: http.Server, port = 0): Promise<string> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const scriptOf = (prompt: string) => (/\[\[(fail|error|hang|hold)\]\]/.exec(prompt)?.[1] ?? 'ok') as 'fail' | 'error' | 'hang' | 'hold' | 'ok';

// ---- OpenAI videos --------------------------------------------------------------------------------------------

export interface FakeVideo {
  id: string;
  model: string;
  prompt: string;
  seconds: string;
  size: string;
  status: 'queued' | 'in_progress' | 'completed' | 'failed';
  polls: number;
  released: boolean;
  /** The input_reference upload: its media type and bytes. */
  reference?: { type: string; bytes: number };
}

/** A catalogue entry for a video model on the OpenAI videos fake at `baseUrl`: one duration, resolution and aspect ratio. */
export function fakeVideoModel(
  baseUrl: string,
  o: { id?: string; name?: string; perSecondUsd?: number; duration?: number; resolution?: string; aspectRatio?: string; pollMs?: number } = {},
) {
  return {
    id: o.id ?? 'held-video',
    name: o.name ?? 'Upstream video',
    type: 'video',
    tier: 'M',
    pricing: { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0, per_second_usd: o.perSecondUsd ?? 0.1 },
    context_length: 2500,
    video: { durations: [o.duration ?? 4], resolutions: [o.resolution ?? '360p'], aspect_ratios: [o.aspectRatio ?? '16:9'] },
    engine: { kind: 'openai-videos', baseUrl, pollMs: o.pollMs ?? 50 },
  };
}

export interface FakeOpenAIVideos {
  /** The base URL, with /v1. */
  url: string;
  requests: RecordedRequest[];
  videos: Map<string, FakeVideo>;
  deleted: string[];
  /** A `[[hold]]` video completes at its next poll. */
  release(id: string): void;
  close(): Promise<void>;
}

export async function startFakeOpenAIVideos(opts: { apiKey?: string; pollsToFinish?: number; port?: number } = {}): Promise<FakeOpenAIVideos> {
  const videos = new Map<string, FakeVideo>();
  const requests: RecordedRequest[] = [];
  const deleted: string[] = [];
  let n = 0;
  const view = (v: FakeVideo) => ({
    id: v.id,
    object: 'video',
    model: v.model,
    status: v.status,
    progress: v.status === 'completed' ? 100 : Math.min(90, v.polls * 30),
    created_at: 1_700_000_000,
    completed_at: v.status === 'completed' ? 1_700_000_100 : null,
    expires_at: null,
    prompt: v.prompt,
    remixed_from_video_id: null,
    seconds: v.seconds,
    size: v.size,
    error:
      v.status === 'failed'
        ? scriptOf(v.prompt) === 'fail'
          ? { code: 'moderation_blocked', message: 'Your request was blocked by our moderation system.' }
          : { code: 'internal_error', message: 'The video could not be generated.' }
        : null,
  });
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push({ method: req.method ?? '', path: url.pathname, authorization: req.headers.authorization });
    const body = await readBody(req);
    if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`)
      return json(res, 401, { error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } });
    const m = /^\/v1\/videos(?:\/([^/]+))?(\/content)?$/.exec(url.pathname);
    if (!m) return json(res, 404, { error: { message: 'not found' } });
    const [, id, content] = m;
    if (req.method === 'POST' && !id) {
      const form = await formOf(req, body);
      const prompt = String(form.get('prompt') ?? '');
      if (!prompt) return json(res, 400, { error: { message: "Missing required parameter: 'prompt'.", param: 'prompt' } });
      const ref = form.get('input_reference');
      const v: FakeVideo = {
        id: `video_${(++n).toString().padStart(4, '0')}`,
        model: String(form.get('model') ?? 'sora-2'),
        prompt,
        seconds: String(form.get('seconds') ?? '4'),
        size: String(form.get('size') ?? '720x1280'),
        status: 'queued',
        polls: 0,
        released: false,
        ...(ref instanceof Blob ? { reference: { type: ref.type, bytes: ref.size } } : {}),
      };
      videos.set(v.id, v);
      return json(res, 200, view(v));
    }
    const v = id ? videos.get(id) : undefined;
    if (!v) return json(res, 404, { error: { message: `Video ${id} not found` } });
    if (req.method === 'DELETE') {
      videos.delete(v.id);
      deleted.push(v.id);
      return json(res, 200, { id: v.id, object: 'video.deleted', deleted: true });
    }
    if (content) {
      if (v.status !== 'completed') return json(res, 400, { error: { message: 'Video is not ready yet' } });
      const [w, h] = v.size.split('x').map(Number);
      const clip = await testClip(w, h, Number(v.seconds));
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': clip.length });
      return res.end(clip);
    }
    v.polls++;
    const script = scriptOf(v.prompt);
    if (v.status === 'queued' || v.status === 'in_progress') {
      if ((script === 'fail' || script === 'error') && v.polls >= 1) v.status = 'failed';
      else if (script === 'ok' && v.polls >= (opts.pollsToFinish ?? 2)) v.status = 'completed';
      else if (script === 'hold' && v.released) v.status = 'completed';
      else v.status = 'in_progress';
    }
    return json(res, 200, view(v));
  });
  const base = await listen(server, opts.port);
  return {
    url: `${base}/v1`,
    requests,
    videos,
    deleted,
    release: (id) => {
      const v = videos.get(id);
      if (v) v.released = true;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---- ComfyUI --------------------------------------------------------------------------------------------------

export interface FakeComfyPrompt {
  id: string;
  graph: Record<string, { class_type: string; inputs: Record<string, unknown> }>;
  polls: number;
  state: 'pending' | 'success' | 'error';
  output?: string;
}

export interface FakeComfyUI {
  url: string;
  requests: RecordedRequest[];
  prompts: Map<string, FakeComfyPrompt>;
  uploads: Map<string, Buffer>;
  /** Prompt ids taken out of the queue (POST /queue {delete}) or interrupted. */
  forgotten: string[];
  close(): Promise<void>;
}

/**
 * A ComfyUI whose one known node, `LagoonTestVideo`, renders a clip of inputs.width × inputs.height for
 * inputs.frames / inputs.fps seconds (inputs.format: mp4 or webm), after one /history poll.
 */
export async function startFakeComfyUI(): Promise<FakeComfyUI> {
  const requests: RecordedRequest[] = [];
  const prompts = new Map<string, FakeComfyPrompt>();
  const uploads = new Map<string, Buffer>();
  const outputs = new Map<string, Buffer>();
  const forgotten: string[] = [];
  let n = 0;
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push({ method: req.method ?? '', path: url.pathname, authorization: req.headers.authorization });
    const body = await readBody(req);
    if (req.method === 'POST' && url.pathname === '/upload/image') {
      const form = await formOf(req, body);
      const file = form.get('image');
      if (!(file instanceof File)) return json(res, 400, { error: 'no image' });
      uploads.set(file.name, Buffer.from(await file.arrayBuffer()));
      return json(res, 200, { name: file.name, subfolder: '', type: 'input' });
    }
    if (req.method === 'POST' && url.pathname === '/prompt') {
      const j = JSON.parse(body.toString('utf8'));
      const graph = j.prompt as FakeComfyPrompt['graph'];
      const node = Object.values(graph ?? {}).find((x) => x?.class_type === 'LagoonTestVideo');
      if (!node)
        return json(res, 400, {
          error: { type: 'invalid_prompt', message: 'Cannot execute because a node is missing the class_type property.' },
          node_errors: {},
        });
      for (const [k, v] of Object.entries(node.inputs)) {
        if (['width', 'height', 'frames', 'fps'].includes(k) && typeof v !== 'number')
          return json(res, 400, { error: { type: 'prompt_outputs_failed_validation', message: `${k} must be a number` }, node_errors: {} });
        if (k === 'image' && typeof v === 'string' && !uploads.has(v))
          return json(res, 400, { error: { message: `Invalid image file: ${v}` }, node_errors: {} });
      }
      const id = `prompt-${++n}`;
      prompts.set(id, { id, graph, polls: 0, state: 'pending' });
      return json(res, 200, { prompt_id: id, number: n, node_errors: {} });
    }
    if (req.method === 'POST' && (url.pathname === '/queue' || url.pathname === '/interrupt')) {
      const j = body.length ? JSON.parse(body.toString('utf8')) : {};
      for (const id of j.delete ?? (j.prompt_id ? [j.prompt_id] : [])) forgotten.push(id);
      return json(res, 200, {});
    }
    const history = /^\/history\/(.+)$/.exec(url.pathname);
    if (req.method === 'GET' && history) {
      const p = prompts.get(decodeURIComponent(history[1]));
      if (!p) return json(res, 200, {});
      p.polls++;
      const node = Object.values(p.graph).find((x) => x.class_type === 'LagoonTestVideo')!;
      const prompt = String(node.inputs.prompt ?? '');
      const script = scriptOf(prompt);
      if (p.state === 'pending' && p.polls >= 2 && script !== 'hang') {
        if (script === 'fail' || script === 'error') p.state = 'error';
        else {
          const i = node.inputs as Record<string, number | string>;
          const format = i.format === 'webm' ? 'webm' : 'mp4';
          const clip = await testClip(Number(i.width), Number(i.height), Math.max(1, Math.round(Number(i.frames) / Number(i.fps))), format);
          p.output = `${String(i.filename_prefix ?? 'out')}_00001.${format}`;
          outputs.set(p.output, clip);
          p.state = 'success';
        }
      }
      if (p.state === 'pending') return json(res, 200, {});
      const status =
        p.state === 'error'
          ? { status_str: 'error', completed: false, messages: [['execution_error', { exception_message: 'CUDA out of memory (fake)' }]] }
          : { status_str: 'success', completed: true, messages: [] };
      const out = p.output ? { '9': { gifs: [{ filename: p.output, subfolder: '', type: 'output', format: 'video/h264-mp4' }] } } : {};
      return json(res, 200, { [p.id]: { prompt: [], outputs: out, status } });
    }
    if (req.method === 'GET' && url.pathname === '/view') {
      const clip = outputs.get(url.searchParams.get('filename') ?? '');
      if (!clip || url.searchParams.get('type') !== 'output') return json(res, 404, { error: 'not found' });
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': clip.length });
      return res.end(clip);
    }
    json(res, 404, { error: 'not found' });
  });
  return {
    url: await listen(server),
    requests,
    prompts,
    uploads,
    forgotten,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An API-format workflow for the fake: one node with the placeholders the engine fills in (`image` for image-to-video). */
export function testWorkflow(opts: { format?: 'mp4' | 'webm'; image?: boolean } = {}) {
  return {
    '3': {
      class_type: 'LagoonTestVideo',
      inputs: {
        prompt: '{{prompt}}',
        negative_prompt: '{{negative_prompt}}',
        seed: '{{seed}}',
        width: '{{width}}',
        height: '{{height}}',
        frames: '{{frames}}',
        fps: '{{fps}}',
        ...(opts.image ? { image: '{{image}}' } : {}),
        filename_prefix: '{{filename_prefix}}',
        label: 'clip of {{duration}} s',
        format: opts.format ?? 'mp4',
      },
    },
  };
}
