import assert from 'node:assert/strict';
import { test } from 'node:test';
import { transcriptionFieldsSchema } from './schema.ts';
import { shapeTranscript } from './transcript-format.ts';
import type { Transcript } from '../engines/audio/types.ts';

const t: Transcript = {
  text: 'hello world again',
  language: 'en',
  words: [
    { word: 'hello', start: 0.1, end: 0.5 },
    { word: 'world', start: 0.6, end: 1.0 },
    { word: 'again', start: 61.5, end: 62.0004 },
  ],
  segments: [
    { text: 'hello world', start: 0.1, end: 1.0 },
    { text: 'again', start: 61.5, end: 62.0004 },
  ],
};
const fields = (f: Record<string, unknown>) => transcriptionFieldsSchema.parse(f);

test('transcript: the public json, with timestamps only when asked', () => {
  assert.deepEqual(shapeTranscript(t, 62.5, fields({})), { kind: 'json', value: { text: 'hello world again', duration: 62.5 } });
  const timed = shapeTranscript(t, 62.5, fields({ timestamps: 'true' }));
  assert.equal(timed.kind, 'json');
  const v = (timed as { value: any }).value;
  assert.equal(v.timestamps.word.length, 3);
  assert.deepEqual(v.timestamps.segment[1], { text: 'again', start: 61.5, end: 62 });
  const wordsOnly = (shapeTranscript(t, 62.5, fields({ timestamp_granularities: ['word'] })) as { value: any }).value;
  assert.deepEqual(Object.keys(wordsOnly.timestamps), ['word']);
});

test('transcript: text, OpenAI verbose_json, srt and vtt', () => {
  assert.deepEqual(shapeTranscript(t, 62.5, fields({ response_format: 'text' })), {
    kind: 'text',
    text: 'hello world again',
    contentType: 'text/plain; charset=utf-8',
  });
  const verbose = (shapeTranscript(t, 62.5, fields({ response_format: 'verbose_json', timestamp_granularities: ['word', 'segment'] })) as { value: any }).value;
  assert.equal(verbose.task, 'transcribe');
  assert.equal(verbose.language, 'english');
  assert.equal(verbose.duration, 62.5);
  assert.deepEqual(
    verbose.segments.map((s: any) => [s.id, s.start, s.end, s.text]),
    [
      [0, 0.1, 1, 'hello world'],
      [1, 61.5, 62, 'again'],
    ],
  );
  assert.equal(verbose.words.length, 3);
  assert.equal((shapeTranscript(t, 62.5, fields({ response_format: 'verbose_json' })) as { value: any }).value.words, undefined);
  const srt = shapeTranscript(t, 62.5, fields({ response_format: 'srt' }));
  assert.equal(srt.kind === 'text' && srt.text, '1\n00:00:00,100 --> 00:00:01,000\nhello world\n\n2\n00:01:01,500 --> 00:01:02,000\nagain\n');
  const vtt = shapeTranscript(t, 62.5, fields({ response_format: 'vtt' }));
  assert.equal(vtt.kind === 'text' && vtt.text, 'WEBVTT\n\n00:00:00.100 --> 00:00:01.000\nhello world\n\n00:01:01.500 --> 00:01:02.000\nagain\n');
});

test('transcript fields: flags as strings, unknown fields refused', () => {
  assert.equal(fields({ timestamps: '1' }).timestamps, true);
  assert.equal(transcriptionFieldsSchema.safeParse({ timestamps: 'yes' }).success, false);
  assert.equal(transcriptionFieldsSchema.safeParse({ response_format: 'xml' }).success, false);
  assert.equal(transcriptionFieldsSchema.safeParse({ mystery: 'x' }).success, false);
});
