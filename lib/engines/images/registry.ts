// One image engine per catalogue model, created on first use (the ESRGAN worker, an upstream's connection pool), behind
// an admission queue: at most maxConcurrency jobs run, maxQueue wait, each at most queueTimeoutMs; beyond that the
// model is at capacity (503). The service holds one (`svc.imageEngines`), shared by the API and the browser app.
import type { CatalogueVars } from '../../models/catalogue.ts';
import { isImageEngineKind, isImageModelType, JOB_OF_TYPE } from '../../models/image-models.ts';
import type { ModelEntry } from '../../models/schema.ts';
import { EnginesByModel } from '../by-model.ts';
import { AdmissionQueue } from '../queue.ts';
import type { ImageEngine } from './engine.ts';

const DEFAULTS = { local: { concurrency: 2, queue: 32 }, upstream: { concurrency: 4, queue: 64 }, waitMs: 60_000 };

function queued(engine: ImageEngine, queue: AdmissionQueue): ImageEngine {
  const wrap = <J extends { signal: AbortSignal }, R>(fn: ((job: J) => Promise<R>) | undefined) =>
    fn &&
    (async (job: J) => {
      const release = await queue.acquire(job.signal);
      try {
        return await fn.call(engine, job);
      } finally {
        release();
      }
    });
  return {
    router: engine.router,
    generate: wrap(engine.generate),
    edit: wrap(engine.edit),
    upscale: wrap(engine.upscale),
    removeBackground: wrap(engine.removeBackground),
    close: engine.close?.bind(engine),
  };
}

export class ImageEngines extends EnginesByModel<ImageEngine> {
  private readonly vars: CatalogueVars;

  constructor(vars: CatalogueVars) {
    super();
    this.vars = vars;
  }

  private secret(model: ModelEntry, name: string | undefined): string | undefined {
    if (!name) return undefined;
    const v = this.vars(name);
    if (!v) throw new Error(`model ${model.id}: environment variable ${name} is not set`);
    return v;
  }

  protected async create(model: ModelEntry): Promise<ImageEngine> {
    const spec = model.engine;
    if (!isImageEngineKind(spec.kind) || !isImageModelType(model.type)) throw new Error(`model ${model.id}: a ${spec.kind} engine does not serve images`);
    const job = JOB_OF_TYPE[model.type];
    // Every image engine kind declares these (image-models.ts `admission`).
    const limits = spec as { maxConcurrency?: number; maxQueue?: number; queueTimeoutMs?: number };
    const local = (engine: ImageEngine) =>
      queued(
        engine,
        new AdmissionQueue(
          limits.maxConcurrency ?? DEFAULTS.local.concurrency,
          limits.maxQueue ?? DEFAULTS.local.queue,
          limits.queueTimeoutMs ?? DEFAULTS.waitMs,
        ),
      );
    const remote = (engine: ImageEngine, concurrency: number) =>
      queued(engine, new AdmissionQueue(concurrency, limits.maxQueue ?? DEFAULTS.upstream.queue, limits.queueTimeoutMs ?? DEFAULTS.waitMs));
    const connections = limits.maxConcurrency ?? DEFAULTS.upstream.concurrency;
    // Each engine module is loaded when a model of its kind is first used.
    switch (spec.kind) {
      case 'demo-image':
        return local((await import('./demo-generate.ts')).createDemoGenerator());
      case 'demo-edit':
        return local((await import('./demo-edit.ts')).createDemoEditor());
      case 'demo-background-remove':
        return local((await import('./demo-background.ts')).createDemoBackgroundRemover());
      case 'sharp-upscale':
        return local((await import('./sharp-upscale.ts')).createSharpUpscaler(spec.kernel));
      case 'esrgan':
        // One job at a time in its worker, with its own queue.
        return (await import('./esrgan.ts')).createEsrganEngine({
          tileSize: spec.tileSize,
          threads: spec.threads,
          maxQueue: spec.maxQueue,
          queueTimeoutMs: spec.queueTimeoutMs,
        });
      case 'openai-images': {
        const { createOpenAIImagesEngine } = await import('./openai-images.ts');
        const engine = createOpenAIImagesEngine({
          baseUrl: spec.baseUrl,
          model: spec.model ?? model.id,
          apiKey: this.secret(model, spec.apiKeyEnv),
          timeoutMs: spec.timeoutMs,
          connections,
        });
        return remote(engine, connections);
      }
      case 'a1111': {
        const { createA1111Engine } = await import('./a1111.ts');
        const engine = createA1111Engine({
          baseUrl: spec.baseUrl,
          credential: this.secret(model, spec.apiKeyEnv),
          checkpoint: spec.checkpoint,
          sampler: spec.sampler,
          upscaler: spec.upscaler,
          denoisingStrength: spec.denoisingStrength,
          timeoutMs: spec.timeoutMs,
          connections,
        });
        return remote(engine, connections);
      }
      case 'comfyui': {
        if (job !== 'generate' && job !== 'edit') throw new Error(`model ${model.id}: a ComfyUI workflow generates or edits`);
        const { createComfyEngine } = await import('./comfyui.ts');
        const engine = createComfyEngine({
          baseUrl: spec.baseUrl,
          workflow: spec.workflow,
          job,
          apiKey: this.secret(model, spec.apiKeyEnv),
          pollMs: spec.pollMs,
          timeoutMs: spec.timeoutMs,
          connections,
        });
        return remote(engine, connections);
      }
      case 'rembg': {
        const { createRembgEngine } = await import('./rembg.ts');
        const engine = createRembgEngine({
          baseUrl: spec.baseUrl,
          model: spec.model,
          apiKey: this.secret(model, spec.apiKeyEnv),
          timeoutMs: spec.timeoutMs,
          connections,
        });
        return remote(engine, connections);
      }
    }
  }
}
