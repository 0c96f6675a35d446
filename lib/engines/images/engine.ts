// The image engine interface: one per catalogue model, chosen by its engine kind. An engine does the jobs its kind
// can (ENGINE_JOBS in lib/models/image-models.ts); the pipeline checks limits, bills, and shapes the output, so an
// engine only turns inputs into image bytes. Failures are EngineErrors (lib/engines/text/types.ts), which the pipeline
// maps to 500/503/504/400 and which release the hold.
import { EngineError } from '../text/types.ts';

/** An image an engine produced: encoded bytes (any format sharp reads), or raw pixels. */
export interface EngineImage {
  bytes: Buffer;
  /** Set when `bytes` are raw interleaved pixels rather than an encoded file. */
  raw?: { width: number; height: number; channels: 1 | 2 | 3 | 4 };
  /**
   * What the upstream's own content classifier said about this image: true (flagged), false (checked, clean).
   * Undefined when no check ran; the response then never claims one did.
   */
  flagged?: boolean;
}

interface JobBase {
  requestId: string;
  /** Aborts when the client goes away: upstream requests are cancelled, queued work is dropped. */
  signal: AbortSignal;
}

/** What a generation asks for: the pipeline's plan carries it, and the job hands it to the engine. */
export interface GenerateSpec {
  prompt: string;
  negativePrompt?: string;
  width: number;
  height: number;
  steps: number;
  cfgScale?: number;
  /** The first variant's seed; variant i uses seed + i. */
  seed: number;
  variants: number;
  stylePreset?: string;
  /** Whether the caller asked for safe mode (an upstream that moderates may be told so). */
  safeMode: boolean;
}

export interface GenerateJob extends JobBase, GenerateSpec {}

export interface EditJob extends JobBase {
  prompt: string;
  /** Encoded input images; the first is the base, the rest are layers or masks (multi-edit). */
  images: Buffer[];
  /** The output size the pipeline asked for (from aspect_ratio and resolution). */
  width: number;
  height: number;
  seed: number;
  safeMode: boolean;
}

export interface UpscaleJob extends JobBase {
  /** The input, encoded. */
  image: Buffer;
  width: number;
  height: number;
  /** The exact output size (the input times the scale, within the output limit). */
  outWidth: number;
  outHeight: number;
}

export interface BackgroundJob extends JobBase {
  image: Buffer;
  width: number;
  height: number;
}

export interface ImageEngine {
  /** Names the backend that served a request (the model-router header). */
  readonly router: string;
  /** Variants in order; fewer than asked is allowed (each is billed), none is a failure. */
  generate?(job: GenerateJob): Promise<EngineImage[]>;
  edit?(job: EditJob): Promise<EngineImage>;
  upscale?(job: UpscaleJob): Promise<EngineImage>;
  removeBackground?(job: BackgroundJob): Promise<EngineImage>;
  close?(): Promise<void>;
}

/** The upstream refused the prompt or its output under its content policy (a 400 saying so, nothing billed). */
export class ContentPolicyError extends EngineError {
  constructor(message: string) {
    super('bad_request', message);
  }
}
