// A transcript in the answer the caller asked for: the public API's json (`{text, duration, timestamps?}`) or plain
// text, and OpenAI's verbose_json, srt and vtt, so the `openai` client's audio.transcriptions.create works too.
import type { TranscriptionFields } from './schema.ts';
import type { TimedSegment, Transcript } from '../engines/audio/types.ts';

export type TranscriptBody = { kind: 'json'; value: Record<string, unknown> } | { kind: 'text'; text: string; contentType: string };

const LANGUAGE_NAMES: Record<string, string> = {
  en: 'english',
  de: 'german',
  fr: 'french',
  es: 'spanish',
  it: 'italian',
  pt: 'portuguese',
  nl: 'dutch',
  ru: 'russian',
  zh: 'chinese',
  ja: 'japanese',
};

const round = (s: number) => Math.round(s * 1000) / 1000;

function clock(seconds: number, separator: ',' | '.'): string {
  const ms = Math.round(seconds * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms % 1000, 3)}`;
}

/** Segments to show as captions: the engine's, or (an engine that gives none) the whole text as one. */
function captions(t: Transcript, duration: number): TimedSegment[] {
  return t.segments.length ? t.segments : t.text ? [{ text: t.text, start: 0, end: duration }] : [];
}

export function shapeTranscript(t: Transcript, duration: number, f: TranscriptionFields): TranscriptBody {
  const granularities = new Set(f.timestamp_granularities ?? (f.timestamps ? ['word', 'segment'] : []));
  const words = t.words.map((w) => ({ word: w.word, start: round(w.start), end: round(w.end) }));
  const segments = t.segments.map((s) => ({ text: s.text, start: round(s.start), end: round(s.end) }));
  switch (f.response_format) {
    case 'text':
      return { kind: 'text', text: t.text, contentType: 'text/plain; charset=utf-8' };
    case 'srt': {
      const blocks = captions(t, duration).map((s, i) => `${i + 1}\n${clock(s.start, ',')} --> ${clock(s.end, ',')}\n${s.text}\n`);
      return { kind: 'text', text: blocks.join('\n'), contentType: 'application/x-subrip; charset=utf-8' };
    }
    case 'vtt': {
      const blocks = captions(t, duration).map((s) => `${clock(s.start, '.')} --> ${clock(s.end, '.')}\n${s.text}\n`);
      return { kind: 'text', text: ['WEBVTT\n', ...blocks].join('\n'), contentType: 'text/vtt; charset=utf-8' };
    }
    case 'verbose_json': {
      // OpenAI's shape: segments always (with the fields its clients read), words when asked for.
      const value: Record<string, unknown> = {
        task: 'transcribe',
        language: LANGUAGE_NAMES[t.language ?? ''] ?? t.language ?? 'english',
        duration: round(duration),
        text: t.text,
        segments: captions(t, duration).map((s, id) => ({
          id,
          seek: 0,
          start: round(s.start),
          end: round(s.end),
          text: s.text,
          tokens: [],
          temperature: 0,
          avg_logprob: 0,
          compression_ratio: 1,
          no_speech_prob: 0,
        })),
        usage: { type: 'duration', seconds: Math.ceil(duration) },
      };
      if (granularities.has('word')) value.words = words;
      return { kind: 'json', value };
    }
    default: {
      const value: Record<string, unknown> = { text: t.text, duration: round(duration) };
      if (granularities.size) {
        value.timestamps = {
          ...(granularities.has('word') ? { word: words } : {}),
          ...(granularities.has('segment') ? { segment: segments } : {}),
        };
      }
      return { kind: 'json', value };
    }
  }
}
