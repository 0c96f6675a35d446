// ComfyUI as an upstream. Each catalogue model names an API-format workflow (ComfyUI's "Save (API)" export) in which
// the operator wrote placeholders where the request's values go: "{{prompt}}", "{{negative_prompt}}", "{{seed}}",
// "{{width}}", "{{height}}", "{{steps}}", "{{cfg_scale}}", "{{batch_size}}", and for edits "{{image}}" (and
// "{{mask}}"), which name images uploaded first through /upload/image. A value that is exactly a numeric placeholder
// becomes a number; placeholders inside longer text are replaced as text. The filled workflow is submitted to /prompt,
// /history/<id> is polled until it finishes, and the saved images are fetched from /view. Variants are one batch when
// the workflow has {{batch_size}}, else one run per variant with consecutive seeds. A client that goes away (or the
// deadline) removes the prompt from the queue and interrupts it. The protocol carries no content flag.
import { randomUUID } from 'node:crypto';
import { Blob } from 'node:buffer';
import fs from 'node:fs';
import { FormData } from 'undici';
import { EngineError } from '../text/types.ts';
import type { EditJob, EngineImage, GenerateJob, ImageEngine } from './engine.ts';
import { sniffImage } from './inputs.ts';
import { withStyle } from './openai-images.ts';
import { type Deadline, Upstream } from './upstream.ts';

export const PLACEHOLDERS = ['prompt', 'negative_prompt', 'seed', 'width', 'height', 'steps', 'cfg_scale', 'batch_size', 'image', 'mask'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
const NUMERIC = new Set<Placeholder>(['seed', 'width', 'height', 'steps', 'cfg_scale', 'batch_size']);
const PATTERN = /\{\{\s*([a-z_]+)\s*\}\}/g;

export interface Workflow {
  template: Record<string, unknown>;
  /** The placeholders the template uses. */
  uses: Set<Placeholder>;
}

/** Reads and checks a workflow file: a JSON object of nodes, with known placeholders, {{prompt}} among them. */
export function parseWorkflow(text: string, source: string): Workflow {
  let template: unknown;
  try {
    template = JSON.parse(text);
  } catch (e) {
    throw new Error(`ComfyUI workflow ${source} is not valid JSON: ${(e as Error).message}`);
  }
  if (!template || typeof template !== 'object' || Array.isArray(template)) throw new Error(`ComfyUI workflow ${source} must be an API-format object of nodes`);
  const uses = new Set<Placeholder>();
  const walk = (v: unknown) => {
    if (typeof v === 'string') {
      for (const [, name] of v.matchAll(PATTERN)) {
        if (!(PLACEHOLDERS as readonly string[]).includes(name)) throw new Error(`ComfyUI workflow ${source} has an unknown placeholder {{${name}}}`);
        uses.add(name as Placeholder);
      }
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(template);
  if (!uses.has('prompt')) throw new Error(`ComfyUI workflow ${source} has no {{prompt}} placeholder`);
  return { template: template as Record<string, unknown>, uses };
}

/** The workflow with the values in place (a deep copy; the template is untouched). */
export function fillWorkflow(w: Workflow, values: Partial<Record<Placeholder, string | number>>): Record<string, unknown> {
  const value = (name: string): string | number => {
    const v = values[name as Placeholder];
    if (v === undefined) throw new EngineError('failed', `the ComfyUI workflow needs {{${name}}}, which this job does not provide`);
    return v;
  };
  const fill = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const whole = /^\{\{\s*([a-z_]+)\s*\}\}$/.exec(v);
      if (whole && NUMERIC.has(whole[1] as Placeholder)) return Number(value(whole[1]));
      return v.replace(PATTERN, (_, name: string) => String(value(name)));
    }
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill(w.template) as Record<string, unknown>;
}

export interface ComfyOptions {
  baseUrl: string;
  workflow: string;
  /** The job this model does: an edit workflow must take {{image}}, a generation workflow must not. */
  job: 'generate' | 'edit';
  apiKey?: string;
  pollMs?: number;
  timeoutMs?: number;
  connections: number;
}

interface OutputImage {
  filename: string;
  subfolder: string;
  type: string;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(t);
      reject(new Error('aborted'));
    };
    signal.addEventListener('abort', stop, { once: true });
  });

export function createComfyEngine(o: ComfyOptions): ImageEngine {
  const workflow = parseWorkflow(fs.readFileSync(o.workflow, 'utf8'), o.workflow);
  if (o.job === 'edit' && !workflow.uses.has('image')) throw new Error(`ComfyUI workflow ${o.workflow} edits, so it needs an {{image}} placeholder`);
  if (o.job === 'generate' && (workflow.uses.has('image') || workflow.uses.has('mask'))) {
    throw new Error(`ComfyUI workflow ${o.workflow} generates, so it cannot take {{image}} or {{mask}}`);
  }
  const up = new Upstream({
    baseUrl: o.baseUrl,
    authorization: o.apiKey ? `Bearer ${o.apiKey}` : undefined,
    timeoutMs: o.timeoutMs,
    connections: o.connections,
    name: 'the ComfyUI upstream',
  });
  const pollMs = o.pollMs ?? 500;
  const clientId = randomUUID();

  async function upload(bytes: Buffer, deadline: Deadline): Promise<string> {
    const type = sniffImage(bytes) ?? 'png';
    const form = new FormData();
    form.append('image', new Blob([bytes], { type: `image/${type}` }), `lagoon-${randomUUID()}.${type === 'jpeg' ? 'jpg' : type}`);
    form.set('type', 'input');
    form.set('overwrite', 'true');
    const j = await up.json('POST', '/upload/image', { form, signal: deadline.signal }, deadline);
    if (typeof j?.name !== 'string') throw new EngineError('failed', 'the ComfyUI upstream did not name the uploaded image');
    return j.subfolder ? `${j.subfolder}/${j.name}` : j.name;
  }

  async function cancel(promptId: string): Promise<void> {
    // Best effort, on a fresh deadline: the job's own has passed or was aborted.
    const d = up.deadline(AbortSignal.timeout(5000));
    await up.call('POST', '/queue', { json: { delete: [promptId] }, signal: d.signal }, d).catch(() => undefined);
    await up.call('POST', '/interrupt', { json: { prompt_id: promptId }, signal: d.signal }, d).catch(() => undefined);
  }

  /** One submission: the images it saved, in node order. */
  async function run(values: Partial<Record<Placeholder, string | number>>, signal: AbortSignal): Promise<EngineImage[]> {
    const deadline = up.deadline(signal);
    const filled = fillWorkflow(workflow, values);
    const res = await up.call('POST', '/prompt', { json: { prompt: filled, client_id: clientId }, signal: deadline.signal }, deadline);
    // A workflow ComfyUI refuses is the operator's to fix, not the caller's: a failure, not a 400.
    if (res.status < 200 || res.status > 299)
      throw new EngineError('failed', `the ComfyUI upstream refused the workflow: ${res.body.toString('utf8').slice(0, 300)}`);
    let promptId: string;
    try {
      promptId = JSON.parse(res.body.toString('utf8')).prompt_id;
    } catch {
      throw new EngineError('failed', 'the ComfyUI upstream answered /prompt with something that is not JSON');
    }
    if (typeof promptId !== 'string' || !promptId) throw new EngineError('failed', 'the ComfyUI upstream did not return a prompt_id');
    let entry: any;
    try {
      for (;;) {
        const history = await up.json('GET', `/history/${encodeURIComponent(promptId)}`, { signal: deadline.signal }, deadline);
        entry = history?.[promptId];
        const status = entry?.status;
        if (status?.status_str === 'error') throw new EngineError('failed', 'the ComfyUI workflow failed while running');
        if (entry && (status?.completed === true || status === undefined) && entry.outputs && Object.keys(entry.outputs).length) break;
        try {
          await sleep(pollMs, deadline.signal);
        } catch {
          throw deadline.timedOut() ? new EngineError('timeout', 'the ComfyUI workflow did not finish in time') : new EngineError('failed', 'aborted');
        }
      }
    } catch (e) {
      void cancel(promptId);
      throw e;
    }
    const all: OutputImage[] = Object.values(entry.outputs as Record<string, { images?: OutputImage[] }>).flatMap((n) => n?.images ?? []);
    // Saved images ("output"); a workflow that only previews gives its previews ("temp").
    const saved = all.filter((i) => i?.type === 'output');
    const chosen = saved.length ? saved : all;
    if (!chosen.length) throw new EngineError('failed', 'the ComfyUI workflow finished without saving an image');
    const out: EngineImage[] = [];
    for (const img of chosen) {
      const view = await up.call(
        'GET',
        '/view',
        { query: { filename: String(img.filename), subfolder: String(img.subfolder ?? ''), type: String(img.type ?? 'output') }, signal: deadline.signal },
        deadline,
      );
      if (view.status !== 200) throw up.failure(view);
      out.push({ bytes: view.body });
    }
    return out;
  }

  const common = (job: { seed: number; width: number; height: number }) => ({ seed: job.seed, width: job.width, height: job.height });

  return {
    router: 'comfyui',
    async generate(job: GenerateJob) {
      const values = {
        ...common(job),
        prompt: withStyle(job.prompt, job.stylePreset),
        negative_prompt: job.negativePrompt ?? '',
        steps: job.steps,
        cfg_scale: job.cfgScale ?? 7,
      };
      if (workflow.uses.has('batch_size')) return (await run({ ...values, batch_size: job.variants }, job.signal)).slice(0, job.variants);
      const out: EngineImage[] = [];
      for (let i = 0; i < job.variants; i++) out.push(...(await run({ ...values, seed: job.seed + i }, job.signal)).slice(0, 1));
      return out;
    },
    async edit(job: EditJob) {
      const deadline = up.deadline(job.signal);
      const image = await upload(job.images[0], deadline);
      const mask = workflow.uses.has('mask') && job.images[1] ? await upload(job.images[1], deadline) : undefined;
      if (workflow.uses.has('mask') && !mask) throw new EngineError('bad_request', 'this model needs a mask: send it as the second of images (multi-edit)');
      const [first] = await run(
        { ...common(job), prompt: job.prompt, negative_prompt: '', image, ...(mask ? { mask } : {}), steps: 20, cfg_scale: 7, batch_size: 1 },
        job.signal,
      );
      return first;
    },
    close: () => up.close(),
  };
}
