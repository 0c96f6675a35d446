import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AttachmentLimits } from '@/lib/wire.ts';
import { createTranslator } from 'use-intl/core';
import en from '../i18n/messages/en.json' with { type: 'json' };
import { checkFiles as check, describeLimits as describe, effectiveType, type FileLike } from './attachment-rules.ts';

// The words come from the catalogue; in English they read as the composer shows them.
const t = createTranslator({ locale: 'en', messages: en, namespace: 'attachments' });
const describeLimits = (limits: AttachmentLimits) => describe(limits, t);
const checkFiles: (...a: [FileLike[], number, AttachmentLimits, boolean]) => ReturnType<typeof check<FileLike>> = (files, n, limits, vision) =>
  check(files, n, limits, vision, t);

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const limits: AttachmentLimits = {
  maxFiles: 3,
  maxFileBytes: 10 * 1024 * 1024,
  imageTypes: ['image/png', 'image/jpeg'],
  documentTypes: ['application/pdf', DOCX, 'text/plain', 'text/markdown', 'text/csv'],
  accept: '',
};
const f = (name: string, type: string, size = 100) => ({ name, type, size });

test('the limits line names counts, size and kinds', () => {
  assert.equal(describeLimits(limits), 'Up to 3 files, 10 MB each: images (vision models), PDF, DOCX, TXT, MD, CSV');
});

test('types come from the extension when the browser gives none or a generic one', () => {
  assert.equal(effectiveType(f('notes.md', '')), 'text/markdown');
  assert.equal(effectiveType(f('data.csv', 'application/octet-stream')), 'text/csv');
  assert.equal(effectiveType(f('notes.md', 'text/plain')), 'text/markdown');
  assert.equal(effectiveType(f('a.png', 'image/png')), 'image/png');
});

test('unsupported, oversized, empty, too many and images without vision are refused with a reason', () => {
  const r = checkFiles(
    [
      f('a.exe', 'application/x-msdownload'),
      f('big.pdf', 'application/pdf', 11 * 1024 * 1024),
      f('e.txt', 'text/plain', 0),
      f('p.png', 'image/png'),
      f('1.pdf', 'application/pdf'),
      f('2.md', ''),
      f('3.csv', 'text/csv'),
    ],
    1,
    limits,
    false,
  );
  assert.deepEqual(
    r.accepted.map((a) => a.file.name),
    ['1.pdf', '2.md'],
  );
  assert.equal(r.errors.length, 5);
  assert.match(r.errors[0], /“a\.exe” is not a supported file type/);
  assert.match(r.errors[1], /11 MB; the limit is 10 MB/);
  assert.match(r.errors[2], /empty/);
  assert.match(r.errors[3], /cannot read images/);
  assert.match(r.errors[4], /at most 3 files/);
});

test('images are accepted for vision models, and hostile names are cleaned in messages', () => {
  const r = checkFiles([f('p.png', 'image/png'), f('x\u202Egnp.exe', 'application/x-msdownload')], 0, limits, true);
  assert.equal(r.accepted[0].kind, 'image');
  assert.equal(r.errors[0], '“xgnp.exe” is not a supported file type.');
});

test('audio files are accepted where the server transcribes them, under the names browsers give them', () => {
  const withAudio: AttachmentLimits = {
    ...limits,
    audioTypes: ['audio/wav', 'audio/mpeg', 'audio/mp4', 'audio/ogg', 'audio/webm', 'audio/flac'],
    maxAudioSeconds: 300,
  };
  assert.equal(
    describeLimits(withAudio),
    'Up to 3 files, 10 MB each: images (vision models), PDF, DOCX, TXT, MD, CSV, audio up to 5 min (WAV, MP3, M4A, OGG, WEBM, FLAC)',
  );
  assert.equal(effectiveType(f('memo.m4a', 'audio/x-m4a')), 'audio/mp4');
  assert.equal(effectiveType(f('rec.webm', 'video/webm')), 'audio/webm');
  assert.equal(effectiveType(f('song.flac', '')), 'audio/flac');
  const r = checkFiles([f('memo.mp3', 'audio/mpeg'), f('take.wav', 'audio/x-wav')], 0, withAudio, false);
  assert.deepEqual(
    r.accepted.map((a) => [a.file.name, a.type, a.kind]),
    [
      ['memo.mp3', 'audio/mpeg', 'document'],
      ['take.wav', 'audio/wav', 'document'],
    ],
  );
  // Without transcription on the server, audio is just another unsupported type.
  assert.match(checkFiles([f('memo.mp3', 'audio/mpeg')], 0, limits, false).errors[0], /not a supported file type/);
});
