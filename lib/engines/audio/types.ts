// The two engine kinds of the audio capability. A speech engine makes 16-bit mono PCM of one piece of text (the
// building block of streamed speech and of texts of any length); an upstream that encodes and streams by itself
// also answers whole requests (`speak`). A transcription engine turns a decoded 16 kHz mono WAV into words with times.
import type { SpeechFormat } from '../../models/audio-models.ts';

export interface VoiceOptions {
  voice: string;
  /** 0.25–4; 1 is the voice's own pace. */
  speed: number;
  language?: string;
  /** Style or emotion, for engines that take one. */
  prompt?: string;
  signal: AbortSignal;
}

export interface SpeakRequest extends VoiceOptions {
  input: string;
  format: SpeechFormat;
}

export interface SpeechEngine {
  /** Names what served the request (the model-router header). */
  readonly router: string;
  /** The sample rate of `pcm`. */
  readonly sampleRate: number;
  /** Why this engine cannot say the input (e.g. no character it can pronounce); undefined when it can. */
  refuses?(input: string): string | undefined;
  /** 16-bit mono PCM at `sampleRate` of one piece of text. */
  pcm(text: string, opts: VoiceOptions): Promise<Buffer>;
  /** The whole answer, encoded and streamed by the engine itself (an upstream): resolves once it has started. */
  speak?(req: SpeakRequest): Promise<AsyncIterable<Buffer>>;
  close?(): Promise<void>;
}

export interface TimedWord {
  word: string;
  start: number;
  end: number;
}

export interface TimedSegment {
  text: string;
  start: number;
  end: number;
}

export interface Transcript {
  text: string;
  /** The language heard, as the engine names it (ISO-639-1 where it can). */
  language?: string;
  words: TimedWord[];
  segments: TimedSegment[];
}

export interface TranscribeInput {
  /** The audio decoded to a 16 kHz mono 16-bit WAV file. */
  wavPath: string;
  seconds: number;
  /** The upload as sent, for an upstream that decodes by itself (smaller than the WAV). */
  original?: { bytes: Buffer; filename: string; contentType: string };
}

export interface TranscribeOptions {
  language?: string;
  prompt?: string;
  /** Whether word times are wanted (an upstream is asked for them only then). */
  words: boolean;
  signal: AbortSignal;
}

export interface TranscriptionEngine {
  readonly router: string;
  transcribe(input: TranscribeInput, opts: TranscribeOptions): Promise<Transcript>;
  close?(): Promise<void>;
}

/** The longest input_audio part chat transcribes: longer audio goes to /audio/transcriptions, which bills it. */
export const CHAT_AUDIO_MAX_SECONDS = 300;
