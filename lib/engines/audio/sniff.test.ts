import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sniffMedia } from './sniff.ts';

test('sniff: containers are told by their first bytes, not their names', () => {
  const cases: [string, Buffer][] = [
    ['wav', Buffer.from('RIFF\0\0\0\0WAVEfmt ')],
    ['flac', Buffer.from('fLaC\0\0\0\x22')],
    ['ogg', Buffer.from('OggS\0\x02')],
    ['matroska', Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 1, 2])],
    ['mov', Buffer.from('\0\0\0\x20ftypM4A ')],
    ['mp3', Buffer.from('ID3\x04\0\0')],
    ['mp3', Buffer.from([0xff, 0xfb, 0x90, 0x64])],
    ['aac', Buffer.from([0xff, 0xf1, 0x50, 0x80])],
    ['aiff', Buffer.from('FORM\0\0\0\0AIFF')],
    ['avi', Buffer.from('RIFF\0\0\0\0AVI LIST')],
  ];
  for (const [demuxer, bytes] of cases) assert.equal(sniffMedia(bytes)?.demuxer, demuxer, demuxer);
  const ts = Buffer.alloc(400);
  ts[0] = ts[188] = ts[376] = 0x47;
  assert.equal(sniffMedia(ts)?.audio, false);
  for (const junk of [Buffer.from('hello world'), Buffer.from('<!doctype html>'), Buffer.alloc(0), Buffer.from([0xff])])
    assert.equal(sniffMedia(junk), undefined);
});
