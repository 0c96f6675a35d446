// Loopback fakes of the image servers people run, each speaking its protocol closely enough that Lagoon's engines are
// tested against the wire they will meet: the OpenAI images API (/v1/images/generations, /v1/images/edits),
// AUTOMATIC1111 (/sdapi/v1/txt2img, img2img, extra-single-image), ComfyUI (/prompt, /history, /view, /upload/image,
// /queue, /interrupt) and rembg (/api/remove). Every image they answer is a real one, drawn with sharp at the size
// asked, in a colour taken from the request (prompt and seed), so tests can tell images apart.
//
// Markers in a prompt steer a fake: [[status:CODE]] answers that HTTP status with the protocol's error body,
// [[policy]] (OpenAI) a content-policy refusal, [[flag]] (OpenAI) Azure-style content_filter_results that flag the
// image, [[checked]] results that pass it, [[garbage]] image data that is not an image, [[hang]] never finishes.
//
// The ComfyUI fake checks the workflow it receives as ComfyUI would: an object of nodes with class_type and inputs,
// links [nodeId, output] to existing nodes, numbers where the node takes numbers, no placeholder left unfilled, and
// LoadImage naming an uploaded file; a bad workflow gets ComfyUI's 400 with node_errors. Queued prompts complete on
// the second /history poll.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { parseMultipart } from '../../lib/http/multipart.ts';

export interface Recorded {
  path: string;
  headers: http.IncomingHttpHeaders;
  json?: any;
  form?: { fields: Record<string, string>; files: { name: string; filename: string; contentType: string; bytes: Buffer }[] };
}

export interface FakeServer {
  /** Base URL (the OpenAI fake's includes /v1). */
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

const hash = (text: string) => {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
};

/** A real PNG of the size, in a colour of its own (from `key`), with a white square so it is not flat. */
export async function fakeImage(width: number, height: number, key: string): Promise<Buffer> {
  const h = hash(key);
  const colour = { r: h & 255, g: (h >>> 8) & 255, b: (h >>> 16) & 255 };
  const side = Math.max(1, Math.floor(Math.min(width, height) / 4));
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .composite([{ input: { create: { width: side, height: side, channels: 3, background: '#fff' } }, left: 0, top: 0 }])
    .png()
    .toBuffer();
}

const marker = (text: unknown, name: string): string | undefined => {
  const m = new RegExp(`\\[\\[${name}(?::([^\\]]*))?\\]\\]`).exec(String(text ?? ''));
  return m ? (m[1] ?? '') : undefined;
};

async function readAll(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const send = (res: http.ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
};

/** A loopback server; `handle` gets the parsed request and answers it. */
async function serve(
  handle: (r: Recorded, req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => Promise<void>,
  prefix = '',
): Promise<FakeServer> {
  const requests: Recorded[] = [];
  const server = http.createServer(async (req, res) => {
    try {
      const body = await readAll(req);
      const type = req.headers['content-type'] ?? '';
      const r: Recorded = { path: req.url ?? '/', headers: req.headers };
      if (type.startsWith('application/json') && body.length) r.json = JSON.parse(body.toString('utf8'));
      if (type.startsWith('multipart/form-data')) r.form = parseMultipart(body, type, { maxBytes: 64 * 1024 * 1024, maxFiles: 20 });
      requests.push(r);
      await handle(r, req, res, body);
    } catch (e) {
      if (!res.headersSent) send(res, 500, { error: { message: `fake failed: ${(e as Error).message}` } });
    }
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const size = (s: unknown) =>
  String(s ?? '1024x1024')
    .split('x')
    .map(Number) as [number, number];

/** The OpenAI images API (OpenAI, Azure OpenAI, LocalAI). `apiKey`: the bearer it requires. */
export function startOpenAIImagesFake(opts: { apiKey?: string } = {}): Promise<FakeServer> {
  return serve(async (r, req, res) => {
    if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`)
      return send(res, 401, { error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } });
    const path = r.path.replace(/^\/v1/, '');
    const input = path === '/images/generations' ? r.json : path === '/images/edits' ? r.form?.fields : undefined;
    if (!input) return send(res, 404, { error: { message: `no route ${r.path}` } });
    const prompt = String(input.prompt ?? '');
    const status = marker(prompt, 'status');
    if (status) return send(res, Number(status), { error: { message: `fake status ${status}`, type: 'server_error' } });
    if (marker(prompt, 'policy') !== undefined) {
      return send(res, 400, {
        error: { message: 'Your request was rejected as a result of our safety system.', code: 'content_policy_violation', type: 'invalid_request_error' },
      });
    }
    if (path === '/images/edits' && !r.form?.files.some((f) => f.name === 'image' || f.name === 'image[]'))
      return send(res, 400, { error: { message: 'image is required' } });
    const [w, h] = size(input.size);
    const n = Number(input.n ?? 1);
    const filter = (flagged: boolean) => ({
      hate: { filtered: false, severity: 'safe' },
      self_harm: { filtered: false, severity: 'safe' },
      sexual: { filtered: false, severity: flagged ? 'high' : 'safe' },
      violence: { filtered: false, severity: 'safe' },
    });
    const data = await Promise.all(
      Array.from({ length: n }, async (_, i) => ({
        b64_json:
          marker(prompt, 'garbage') !== undefined
            ? Buffer.from('not an image at all').toString('base64')
            : (await fakeImage(w, h, `${prompt}#${i}`)).toString('base64'),
        revised_prompt: prompt,
        ...(marker(prompt, 'flag') !== undefined
          ? { content_filter_results: filter(true) }
          : marker(prompt, 'checked') !== undefined
            ? { content_filter_results: filter(false) }
            : {}),
      })),
    );
    send(res, 200, { created: Math.floor(Date.now() / 1000), data });
  }, '/v1');
}

/** AUTOMATIC1111's API. `credential`: the `user:pass` of --api-auth it requires. */
export function startA1111Fake(opts: { credential?: string } = {}): Promise<FakeServer> {
  return serve(async (r, req, res) => {
    if (opts.credential && req.headers.authorization !== `Basic ${Buffer.from(opts.credential).toString('base64')}`)
      return send(res, 401, { detail: 'Incorrect credentials' });
    const j = r.json ?? {};
    const status = marker(j.prompt, 'status');
    if (status) return send(res, Number(status), { error: 'HTTPException', detail: `fake status ${status}`, body: '', errors: '' });
    if (r.path === '/sdapi/v1/txt2img') {
      const batch = Number(j.batch_size ?? 1);
      const images = await Promise.all(Array.from({ length: batch }, (_, i) => fakeImage(j.width, j.height, `${j.prompt}#${Number(j.seed) + i}`)));
      // The web UI puts a grid of the batch first when its return-grid option is on, as it is by default.
      const grid = batch > 1 ? [await fakeImage(j.width * 2, j.height, 'grid')] : [];
      return send(res, 200, {
        images: [...grid, ...images].map((b) => b.toString('base64')),
        parameters: j,
        info: JSON.stringify({ seed: j.seed, all_seeds: images.map((_, i) => j.seed + i) }),
      });
    }
    if (r.path === '/sdapi/v1/img2img') {
      if (!Array.isArray(j.init_images) || !j.init_images.length) return send(res, 422, { detail: 'init_images required' });
      const init = await sharp(Buffer.from(j.init_images[0], 'base64')).metadata();
      if (!init.width) return send(res, 422, { detail: 'init image unreadable' });
      const out = await fakeImage(j.width, j.height, `${j.prompt}#${j.seed}#${j.mask ? 'masked' : 'plain'}`);
      return send(res, 200, { images: [out.toString('base64')], parameters: { ...j, init_images: ['…'] }, info: '{}' });
    }
    if (r.path === '/sdapi/v1/extra-single-image') {
      const out = await sharp(Buffer.from(j.image, 'base64')).resize(j.upscaling_resize_w, j.upscaling_resize_h, { fit: 'fill' }).png().toBuffer();
      return send(res, 200, { image: out.toString('base64'), html_info: `<p>${j.upscaler_1}</p>` });
    }
    send(res, 404, { detail: 'Not Found' });
  });
}

export interface ComfyFake extends FakeServer {
  /** Every workflow /prompt accepted or refused, as received. */
  workflows: Record<string, any>[];
  /** Prompt ids removed through /queue or interrupted through /interrupt. */
  cancelled: string[];
}

const NODE_INPUTS: Record<string, Record<string, 'number' | 'string' | 'link'>> = {
  CheckpointLoaderSimple: { ckpt_name: 'string' },
  CLIPTextEncode: { text: 'string', clip: 'link' },
  EmptyLatentImage: { width: 'number', height: 'number', batch_size: 'number' },
  KSampler: {
    seed: 'number',
    steps: 'number',
    cfg: 'number',
    sampler_name: 'string',
    scheduler: 'string',
    denoise: 'number',
    model: 'link',
    positive: 'link',
    negative: 'link',
    latent_image: 'link',
  },
  VAEDecode: { samples: 'link', vae: 'link' },
  VAEEncode: { pixels: 'link', vae: 'link' },
  LoadImage: { image: 'string' },
  SaveImage: { images: 'link', filename_prefix: 'string' },
};

/** ComfyUI's HTTP API, with the checks ComfyUI makes of a workflow before it queues it. */
export async function startComfyFake(): Promise<ComfyFake> {
  const workflows: Record<string, any>[] = [];
  const cancelled: string[] = [];
  const uploads = new Map<string, Buffer>();
  const outputs = new Map<string, Buffer>();
  const history = new Map<
    string,
    { polls: number; hang: boolean; error: boolean; outputs: Record<string, { images: { filename: string; subfolder: string; type: string }[] }> }
  >();

  function validate(wf: any): string | undefined {
    if (!wf || typeof wf !== 'object' || Array.isArray(wf)) return 'prompt must be an object of nodes';
    for (const [id, node] of Object.entries<any>(wf)) {
      const spec = NODE_INPUTS[node?.class_type];
      if (!spec) return `node ${id}: unknown class_type ${node?.class_type}`;
      for (const [key, kind] of Object.entries(spec)) {
        const v = node.inputs?.[key];
        if (v === undefined) continue;
        if (kind === 'number' && typeof v !== 'number') return `node ${id}: ${key} must be a number, got ${JSON.stringify(v)}`;
        if (kind === 'string' && typeof v !== 'string') return `node ${id}: ${key} must be a string`;
        if (kind === 'link' && !(Array.isArray(v) && typeof v[0] === 'string' && Object.hasOwn(wf, v[0]))) return `node ${id}: ${key} must link to a node`;
      }
      if (JSON.stringify(node).includes('{{')) return `node ${id}: an unfilled placeholder`;
      if (node.class_type === 'LoadImage' && !uploads.has(node.inputs.image)) return `node ${id}: image ${node.inputs.image} was never uploaded`;
    }
    if (!Object.values<any>(wf).some((n) => n.class_type === 'SaveImage')) return 'the workflow has no output node';
    return undefined;
  }

  const fake = await serve(async (r, _req, res, body) => {
    const url = new URL(r.path, 'http://x');
    if (url.pathname === '/prompt') {
      const wf = r.json?.prompt;
      workflows.push(wf);
      const why = validate(wf);
      if (why) return send(res, 400, { error: { type: 'prompt_outputs_failed_validation', message: why, details: '' }, node_errors: {} });
      const id = randomUUID();
      const nodes = Object.entries<any>(wf);
      const latent = nodes.find(([, n]) => n.class_type === 'EmptyLatentImage')?.[1]?.inputs;
      const load = nodes.find(([, n]) => n.class_type === 'LoadImage')?.[1]?.inputs;
      const sampler = nodes.find(([, n]) => n.class_type === 'KSampler')?.[1]?.inputs;
      const text = nodes.find(([, n]) => n.class_type === 'CLIPTextEncode')?.[1]?.inputs?.text ?? '';
      let w = latent?.width;
      let h = latent?.height;
      if (load) ({ width: w, height: h } = await sharp(uploads.get(load.image)).metadata());
      const images = [];
      for (let i = 0; i < Number(latent?.batch_size ?? 1); i++) {
        const filename = `ComfyUI_${id.slice(0, 8)}_${i}.png`;
        outputs.set(filename, await fakeImage(w, h, `${text}#${sampler?.seed + i}`));
        images.push({ filename, subfolder: '', type: 'output' });
      }
      const save = nodes.find(([, n]) => n.class_type === 'SaveImage')![0];
      history.set(id, { polls: 0, hang: marker(text, 'hang') !== undefined, error: marker(text, 'error') !== undefined, outputs: { [save]: { images } } });
      return send(res, 200, { prompt_id: id, number: history.size, node_errors: {} });
    }
    if (url.pathname.startsWith('/history/')) {
      const id = decodeURIComponent(url.pathname.slice('/history/'.length));
      const entry = history.get(id);
      if (!entry) return send(res, 200, {});
      entry.polls++;
      if (entry.hang || entry.polls < 2) return send(res, 200, {}); // still queued or running
      const status = { status_str: entry.error ? 'error' : 'success', completed: !entry.error, messages: [] };
      return send(res, 200, { [id]: { prompt: [], outputs: entry.error ? {} : entry.outputs, status } });
    }
    if (url.pathname === '/view') {
      const file = outputs.get(url.searchParams.get('filename') ?? '');
      if (!file || url.searchParams.get('type') !== 'output') return send(res, 404, {});
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': file.length }).end(file);
      return;
    }
    if (url.pathname === '/upload/image') {
      const file = r.form?.files.find((f) => f.name === 'image');
      if (!file) return send(res, 400, {});
      uploads.set(file.filename, file.bytes);
      return send(res, 200, { name: file.filename, subfolder: '', type: 'input' });
    }
    if (url.pathname === '/queue' || url.pathname === '/interrupt') {
      const ids: string[] = url.pathname === '/queue' ? (r.json?.delete ?? []) : [r.json?.prompt_id];
      cancelled.push(...ids.filter(Boolean));
      void body;
      return send(res, 200, {});
    }
    send(res, 404, {});
  });
  return { ...fake, workflows, cancelled };
}

/** rembg's server: the image's left half made transparent (a real cut-out, so a test can see it happened). */
export function startRembgFake(): Promise<FakeServer> {
  return serve(async (r, _req, res) => {
    if (r.path !== '/api/remove') return send(res, 404, { detail: 'Not Found' });
    const file = r.form?.files.find((f) => f.name === 'file');
    if (!file) return send(res, 422, { detail: [{ loc: ['body', 'file'], msg: 'field required' }] });
    const img = sharp(file.bytes);
    const { width = 1, height = 1 } = await img.metadata();
    const alpha = await sharp({ create: { width, height, channels: 3, background: '#fff' } })
      .composite([{ input: { create: { width: Math.floor(width / 2), height, channels: 3, background: '#000' } }, left: 0, top: 0 }])
      .extractChannel(0)
      .raw()
      .toBuffer();
    const rgb = await img.removeAlpha().raw().toBuffer();
    const out = await sharp(rgb, { raw: { width, height, channels: 3 } })
      .joinChannel(alpha, { raw: { width, height, channels: 1 } })
      .png()
      .toBuffer();
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': out.length }).end(out);
  });
}

/** A ComfyUI API-format workflow (txt2img), with placeholders where Lagoon fills in the request. */
export function comfyTxt2ImgWorkflow(batch: boolean): Record<string, unknown> {
  return {
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
    '5': { class_type: 'EmptyLatentImage', inputs: { width: '{{width}}', height: '{{height}}', batch_size: batch ? '{{batch_size}}' : 1 } },
    '6': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}', clip: ['4', 1] } },
    '7': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry, {{negative_prompt}}', clip: ['4', 1] } },
    '3': {
      class_type: 'KSampler',
      inputs: {
        seed: '{{seed}}',
        steps: '{{steps}}',
        cfg: '{{cfg_scale}}',
        sampler_name: 'euler',
        scheduler: 'normal',
        denoise: 1,
        model: ['4', 0],
        positive: ['6', 0],
        negative: ['7', 0],
        latent_image: ['5', 0],
      },
    },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
    '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'lagoon', images: ['8', 0] } },
  };
}

/** An img2img workflow: the uploaded image is loaded, encoded and resampled with the prompt. */
export function comfyImg2ImgWorkflow(): Record<string, unknown> {
  return {
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
    '10': { class_type: 'LoadImage', inputs: { image: '{{image}}' } },
    '11': { class_type: 'VAEEncode', inputs: { pixels: ['10', 0], vae: ['4', 2] } },
    '6': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}', clip: ['4', 1] } },
    '7': { class_type: 'CLIPTextEncode', inputs: { text: '{{negative_prompt}}', clip: ['4', 1] } },
    '3': {
      class_type: 'KSampler',
      inputs: {
        seed: '{{seed}}',
        steps: '{{steps}}',
        cfg: '{{cfg_scale}}',
        sampler_name: 'euler',
        scheduler: 'normal',
        denoise: 0.6,
        model: ['4', 0],
        positive: ['6', 0],
        negative: ['7', 0],
        latent_image: ['11', 0],
      },
    },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
    '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'lagoon-edit', images: ['8', 0] } },
  };
}
