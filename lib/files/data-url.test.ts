import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../api/errors.ts';
import { parseDataUrl } from './data-url.ts';

function rejects(url: string, pattern: RegExp): void {
  assert.throws(
    () => parseDataUrl(url),
    (e: unknown) => e instanceof ApiError && e.code === 'INVALID_REQUEST' && pattern.test(e.message),
  );
}

describe('parseDataUrl', () => {
  it('decodes base64 payloads and lower-cases the mime type', () => {
    const { mimeType, data } = parseDataUrl(`data:Application/PDF;base64,${Buffer.from('%PDF-1.7 x').toString('base64')}`);
    assert.equal(mimeType, 'application/pdf');
    assert.equal(data.toString(), '%PDF-1.7 x');
  });

  it('keeps binary bytes exact', () => {
    const bytes = Buffer.from([0, 255, 128, 10, 13, 62, 63]);
    assert.deepEqual(parseDataUrl(`data:application/octet-stream;base64,${bytes.toString('base64')}`).data, bytes);
  });

  it('accepts parameters, case-insensitive "base64", line-wrapped and unpadded base64, base64url', () => {
    assert.equal(parseDataUrl('data:text/plain;charset=utf-8;BASE64,aGVs\r\nbG8=').data.toString(), 'hello');
    assert.equal(parseDataUrl('data:text/plain;base64,aGVsbG8').data.toString(), 'hello');
    assert.deepEqual(parseDataUrl('data:application/octet-stream;base64,-_8').data, Buffer.from([0xfb, 0xff]));
  });

  it('decodes percent-encoded payloads, including percent-escaped base64', () => {
    assert.equal(parseDataUrl('data:text/plain,a%20b%2Cc,d').data.toString(), 'a b,c,d');
    assert.deepEqual(parseDataUrl('data:application/octet-stream,%FF%00').data, Buffer.from([0xff, 0]));
    assert.equal(parseDataUrl('data:text/plain,caf\u00e9').data.toString(), 'caf\u00e9');
    assert.equal(parseDataUrl('data:;base64,Pz8%2F').data.toString(), '???');
  });

  it('defaults the mime type to text/plain and allows an empty payload', () => {
    const { mimeType, data } = parseDataUrl('data:,');
    assert.equal(mimeType, 'text/plain');
    assert.equal(data.length, 0);
  });

  it('rejects malformed URLs with a reason', () => {
    rejects('http://example.com/a.pdf', /must start with "data:"/);
    rejects('data:text/plain;base64', /missing the ","/);
    rejects('data:notamime;base64,aGVsbG8=', /not a mime type/);
    rejects('data:text/plain;charset;base64,aGVsbG8=', /malformed parameter/);
    rejects('data:text/plain;base64,aGV$sbG8=', /not valid base64/);
    rejects('data:text/plain;base64,aGVsbG8=x', /not valid base64/);
    rejects('data:text/plain;base64,aGVsb', /wrong length/);
    rejects('data:text/plain;base64,aGVsbG=', /wrong length/);
    rejects('data:text/plain,100%', /bad percent-escape/);
    rejects('data:text/plain,%zz', /bad percent-escape/);
  });
});
