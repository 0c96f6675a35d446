// One video engine per catalogue model, in the registry shape of every engine kind (lib/engines/by-model.ts), held by
// the service: the demo renderer, the OpenAI videos API and ComfyUI workflows. The video job kind (lib/video/kind.ts)
// asks it for a job's engine; what an engine needs from the server (keys, the catalogue's folder, the result cap) is
// given once here rather than on every run.
import type { JobOutput, RunContext } from '../../jobs/types.ts';
import type { ModelEntry } from '../../models/schema.ts';
import { EnginesByModel } from '../by-model.ts';
import { runComfyVideo } from './comfyui.ts';
import { runDemo } from './demo.ts';
import { runOpenAIVideos } from './openai-videos.ts';
import type { VideoRequest } from './request.ts';

const DEMO_FPS = 24;

export interface VideoJob {
  id: string;
  request: VideoRequest;
  /** What an earlier attempt checkpointed (an upstream's job id), so a restarted job resumes rather than pays twice. */
  state: unknown;
}

export interface VideoEngine {
  run(job: VideoJob, ctx: RunContext): Promise<JobOutput>;
  close?(): Promise<void>;
}

export interface VideoEngineDeps {
  /** Where the catalogue file is: ComfyUI workflow paths are relative to it. */
  catalogueDir: string;
  /** Variables the catalogue names (upstream keys, `${VAR}` in paths). */
  vars: (name: string) => string | undefined;
  /** The largest result accepted from an upstream. */
  maxResultBytes: number;
}

export class VideoEngines extends EnginesByModel<VideoEngine> {
  private readonly deps: VideoEngineDeps;

  constructor(deps: VideoEngineDeps) {
    super();
    this.deps = deps;
  }

  protected async create(model: ModelEntry): Promise<VideoEngine> {
    const spec = model.engine;
    const { vars, catalogueDir, maxResultBytes: maxBytes } = this.deps;
    switch (spec.kind) {
      case 'demo-video': {
        const fps = spec.fps ?? DEMO_FPS;
        return { run: (job, ctx) => runDemo(job.request, fps, ctx) };
      }
      case 'openai-videos':
        return { run: (job, ctx) => runOpenAIVideos(model, spec, job.request, ctx, { state: job.state, vars, maxBytes }) };
      case 'comfyui-video':
        return { run: (job, ctx) => runComfyVideo(spec, job.request, ctx, { jobId: job.id, state: job.state, catalogueDir, vars, maxBytes }) };
      default:
        throw new Error(`model ${model.id} has no video engine (${spec.kind})`);
    }
  }
}
