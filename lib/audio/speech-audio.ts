// Speech, piece by piece: a text is cut into sentences (sentences.ts), each made into PCM by the engine while the one
// before is being encoded, and the PCM is encoded as it comes (ffmpeg.ts). The same path serves a streamed answer
// (the first sentence plays while the rest are made), a buffered one, and a text of any length written to one file
// (`synthesizeToFile`, for a long-audio job).
import fs from 'node:fs/promises';
import type { SpeechFormat } from '../models/audio-models.ts';
import { encodePcm } from '../engines/audio/ffmpeg.ts';
import { characterCount, splitSentences } from '../engines/audio/sentences.ts';
import type { SpeechEngine, VoiceOptions } from '../engines/audio/types.ts';
import { wavHeader } from '../engines/audio/wav.ts';

/** Silence between sentences (seconds): made one at a time, they would otherwise run into each other. */
export const SENTENCE_PAUSE = 0.25;

/** How far a synthesis got: the characters of the pieces already made (what a cut-off stream is billed). */
export interface SpeechProgress {
  characters: number;
  pieces: number;
  totalPieces: number;
  /** Whether any audio was made yet (an encoder's header bytes come before it). */
  audible?: boolean;
}

/**
 * PCM of each piece in order; the next piece is being made while the caller handles this one. `beforeLast` is awaited
 * once the last piece is made and before it is handed on (a stream's settlement commits there).
 */
export async function* piecesPcm(
  engine: SpeechEngine,
  pieces: string[],
  voice: VoiceOptions,
  progress: SpeechProgress,
  beforeLast?: () => Promise<void>,
): AsyncGenerator<Buffer> {
  progress.totalPieces = pieces.length;
  const make = (i: number) => {
    const p = engine.pcm(pieces[i], voice);
    p.catch(() => {}); // awaited in turn below; a piece abandoned by an early stop must not go unhandled
    return p;
  };
  const pause = Buffer.alloc(Math.round(engine.sampleRate * SENTENCE_PAUSE) * 2);
  let spoken = false;
  let next = pieces.length ? make(0) : undefined;
  for (let i = 0; i < pieces.length; i++) {
    const current = next!;
    next = i + 1 < pieces.length ? make(i + 1) : undefined;
    const pcm = await current;
    progress.characters += characterCount(pieces[i]);
    progress.pieces++;
    if (i === pieces.length - 1) await beforeLast?.();
    if (!pcm.length) continue;
    progress.audible = true;
    yield spoken ? Buffer.concat([pause, pcm]) : pcm;
    spoken = true;
  }
}

export interface SpeechAudioOptions {
  engine: SpeechEngine;
  /** Needed for mp3, opus, aac and flac. */
  ffmpeg: string | undefined;
  input: string;
  format: SpeechFormat;
  voice: VoiceOptions;
  /** A stream writes a WAV whose sizes say "unknown"; a buffered answer has exact sizes. */
  streaming: boolean;
  progress: SpeechProgress;
  /** Awaited before the last bytes are made: a client never holds the whole answer before its charge is recorded. */
  beforeEnd?: () => Promise<void>;
}

/** The encoded speech of `input` as it is made: the engine's own stream (an upstream), or pieces encoded here. */
export async function speechAudio(o: SpeechAudioOptions): Promise<AsyncIterable<Buffer>> {
  if (o.engine.speak) {
    const audio = countWhole(await o.engine.speak({ ...o.voice, input: o.input, format: o.format }), o.progress, characterCount(o.input));
    return o.beforeEnd ? holdLast(audio, o.beforeEnd) : audio;
  }
  const pcm = piecesPcm(o.engine, splitSentences(o.input), o.voice, o.progress, o.beforeEnd);
  return encodePcm(o.ffmpeg ?? 'ffmpeg', o.format, o.engine.sampleRate, pcm, { exactWav: !o.streaming });
}

/** An engine's own stream counts as one piece: its characters are made once the stream has ended. */
async function* countWhole(audio: AsyncIterable<Buffer>, progress: SpeechProgress, characters: number): AsyncGenerator<Buffer> {
  progress.totalPieces = 1;
  for await (const chunk of audio) {
    progress.audible = true;
    yield chunk;
  }
  progress.characters = characters;
  progress.pieces = 1;
}

/**
 * Yields the chunks of `source` one behind, and before the last one awaits `beforeEnd` (the settlement's commit):
 * a client never holds the whole answer before its charge is recorded.
 */
export async function* holdLast(source: AsyncIterable<Buffer>, beforeEnd: () => Promise<void>): AsyncGenerator<Buffer> {
  let held: Buffer | undefined;
  for await (const chunk of source) {
    if (held) yield held;
    held = chunk;
  }
  await beforeEnd();
  if (held) yield held;
}

/**
 * A text of any length spoken into one encoded file at `outPath`, sentence by sentence, with progress after each
 * (what a long-audio job runs). WAV is streamed to the file and its sizes written at the end. Resolves with the
 * characters spoken (the whole input's, as quoted) and the file's size; on failure or abort the partial file is removed.
 */
export async function synthesizeToFile(
  o: Omit<SpeechAudioOptions, 'streaming' | 'progress'> & { outPath: string; onProgress?: (p: SpeechProgress) => void },
): Promise<{ characters: number; bytes: number }> {
  const progress: SpeechProgress = { characters: 0, pieces: 0, totalPieces: 0 };
  const reporting = async function* (pcm: AsyncIterable<Buffer>) {
    for await (const piece of pcm) {
      yield piece;
      o.onProgress?.(progress);
    }
  };
  const pcm = reporting(piecesPcm(o.engine, splitSentences(o.input), o.voice, progress));
  const file = await fs.open(o.outPath, 'w');
  let bytes = 0;
  try {
    for await (const chunk of encodePcm(o.ffmpeg ?? 'ffmpeg', o.format, o.engine.sampleRate, pcm)) {
      await file.write(chunk);
      bytes += chunk.length;
    }
    if (o.format === 'wav') await file.write(wavHeader(o.engine.sampleRate, bytes - 44), 0, 44, 0);
    await file.close();
  } catch (e) {
    await file.close().catch(() => {});
    await fs.rm(o.outPath, { force: true });
    throw e;
  }
  return { characters: characterCount(o.input), bytes };
}
