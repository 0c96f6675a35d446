// The multipart parser against bodies made by a real encoder (undici's FormData, as fetch sends it) and by hand
// (the malformed and hostile cases an encoder never makes).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../api/errors.ts';
import { isMultipart, parseMultipart } from './multipart.ts';

const LIMITS = { maxBytes: 1024 * 1024, maxFiles: 3 };

/** What fetch would send for this form: the body bytes and the Content-Type with its boundary. */
async function encode(form: FormData): Promise<{ body: Buffer; type: string }> {
  const req = new Request('http://localhost/', { method: 'POST', body: form });
  return { body: Buffer.from(await req.arrayBuffer()), type: req.headers.get('content-type')! };
}

const rejects = (fn: () => unknown, code: string, message: RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof ApiError && e.code === code && message.test(e.message));

function raw(parts: string[], boundary = 'XyZ'): { body: Buffer; type: string } {
  return { body: Buffer.from(parts.join('\r\n'), 'latin1'), type: `multipart/form-data; boundary=${boundary}` };
}

describe('parseMultipart', () => {
  test('fields and files from a browser-style FormData, bytes intact, UTF-8 names', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x0d, 0x0a, 0x2d, 0x2d]);
    const form = new FormData();
    form.append('prompt', 'a lagoon at dawn — ünïcode');
    form.append('scale', '2');
    form.append('image', new Blob([png], { type: 'image/png' }), 'photo é.png');
    form.append('images', new Blob([Buffer.from('second')]), 'b.bin');
    form.append('images', new Blob([Buffer.alloc(0)], { type: 'image/webp' }), 'empty.webp');
    const { body, type } = await encode(form);
    const parsed = parseMultipart(body, type, LIMITS);
    assert.deepEqual(parsed.fields, { prompt: 'a lagoon at dawn — ünïcode', scale: '2' });
    assert.deepEqual(
      parsed.files.map((f) => [f.name, f.filename, f.contentType, f.bytes.length]),
      [
        ['image', 'photo é.png', 'image/png', png.length],
        ['images', 'b.bin', 'application/octet-stream', 6],
        ['images', 'empty.webp', 'image/webp', 0],
      ],
    );
    assert.deepEqual(parsed.files[0].bytes, png, 'bytes that look like CRLF and dashes survive');
  });

  test('a preamble, quoted boundaries, transport padding and an epilogue are allowed', () => {
    const body = Buffer.from(
      'preamble text\r\n--a"b\r\nContent-Disposition: form-data; name="x"\r\n\r\n1\r\n--a"b  \r\nContent-Disposition: form-data; name=y\r\n\r\n2\r\n--a"b--\r\nepilogue',
    );
    // The boundary here is quoted because it holds a character (") that needs it... which RFC 2046 does not allow.
    rejects(() => parseMultipart(body, 'multipart/form-data; boundary="a\\"b"', LIMITS), 'INVALID_REQUEST', /not a valid multipart boundary/);
    const ok = Buffer.from(body.toString().replaceAll('a"b', 'a b'));
    const parsed = parseMultipart(ok, 'multipart/form-data; boundary="a b"', LIMITS);
    assert.deepEqual(parsed.fields, { x: '1', y: '2' });
  });

  test('malformed bodies are 400s that say why', () => {
    const cd = (name: string) => `Content-Disposition: form-data; name="${name}"`;
    const cases: [{ body: Buffer; type: string }, RegExp][] = [
      [{ body: Buffer.from('x'), type: 'multipart/form-data' }, /no boundary/],
      [raw(['no boundary here']), /boundary never occurs/],
      [raw(['--XyZ', cd('a'), '', 'value']), /without its closing boundary/],
      [raw(['--XyZ', cd('a')]), /no end of headers/],
      [raw(['--XyZ', 'Content-Type: text/plain', '', 'v', '--XyZ--']), /no Content-Disposition/],
      [raw(['--XyZ', 'Content-Disposition: attachment; name="a"', '', 'v', '--XyZ--']), /not form-data/],
      [raw(['--XyZ', 'Content-Disposition: form-data', '', 'v', '--XyZ--']), /has no name/],
      [raw(['--XyZ', 'garbage line', '', 'v', '--XyZ--']), /header is malformed/],
      [raw(['--XyZ', 'Content-Disposition: form-data; name="a', '', 'v', '--XyZ--']), /unterminated quoted string/],
      [raw(['--XyZjunk', cd('a'), '', 'v', '--XyZ--']), /boundary line is malformed/],
      [raw(['--XyZ', cd('a'), '', '1', '--XyZ', cd('a'), '', '2', '--XyZ--']), /field a is given more than once/],
      [raw(['--XyZ', cd('a'), '', '\xff\xfe', '--XyZ--']), /field a is not valid UTF-8/],
      [raw(['--XyZ', `${cd('a')}; filename*=latin1''x`, '', 'v', '--XyZ--']), /filename\* parameter is not UTF-8/],
      [raw(['--XyZ', `Content-Disposition: form-data; name="h"${'x'.repeat(9000)}`, '', 'v', '--XyZ--']), /too large a header block/],
    ];
    for (const [{ body, type }, message] of cases) rejects(() => parseMultipart(body, type, LIMITS), 'INVALID_REQUEST', message);
  });

  test('limits: files, fields, a field size and the body size', () => {
    const file = (i: number) => [`--XyZ`, `Content-Disposition: form-data; name="f${i}"; filename="f${i}.png"`, '', 'x'];
    const four = raw([...file(1), ...file(2), ...file(3), ...file(4), '--XyZ--']);
    rejects(() => parseMultipart(four.body, four.type, LIMITS), 'INVALID_REQUEST', /At most 3 file\(s\)/);
    const fields = raw([...Array.from({ length: 3 }, (_, i) => [`--XyZ`, `Content-Disposition: form-data; name="k${i}"`, '', 'v']).flat(), '--XyZ--']);
    rejects(() => parseMultipart(fields.body, fields.type, { ...LIMITS, maxFields: 2 }), 'INVALID_REQUEST', /more than 2 fields/);
    const big = raw(['--XyZ', 'Content-Disposition: form-data; name="p"', '', 'y'.repeat(11), '--XyZ--']);
    rejects(() => parseMultipart(big.body, big.type, { ...LIMITS, maxFieldBytes: 10 }), 'INVALID_REQUEST', /field p is larger than 10 bytes/);
    rejects(() => parseMultipart(big.body, big.type, { ...LIMITS, maxBytes: 20 }), 'PAYLOAD_TOO_LARGE', /larger than/);
  });

  test('RFC 5987 file names, and prototype names are plain keys', () => {
    const { body, type } = raw([
      '--XyZ',
      `Content-Disposition: form-data; name="__proto__"`,
      '',
      'p',
      '--XyZ',
      `Content-Disposition: form-data; name="file"; filename*=UTF-8''caf%C3%A9.png`,
      'Content-Type: IMAGE/PNG; charset=binary',
      '',
      'z',
      '--XyZ--',
    ]);
    const parsed = parseMultipart(body, type, LIMITS);
    assert.equal(Object.getPrototypeOf(parsed.fields), Object.prototype);
    assert.equal(Object.getOwnPropertyDescriptor(parsed.fields, '__proto__')?.value, 'p');
    assert.deepEqual([parsed.files[0].filename, parsed.files[0].contentType], ['café.png', 'image/png']);
  });

  test('isMultipart reads the media type only', () => {
    assert.equal(isMultipart('multipart/form-data; boundary=x'), true);
    assert.equal(isMultipart('Multipart/Form-Data'), true);
    assert.equal(isMultipart('application/json'), false);
    assert.equal(isMultipart(undefined), false);
  });
});
