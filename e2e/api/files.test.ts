// File parts in chat messages reach the model as text; bad files get clear 400s; URLs go through the safe fetcher.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Document, Packer, Paragraph } from 'docx';
import { type Harness, post, startHarness } from '../support/harness.ts';

let h: Harness;
let key: string;
let fileServer: http.Server;
let fileUrl: string;
before(async () => {
  h = await startHarness();
  ({ key } = await h.newAccount());
  fileServer = http.createServer((_, res) => res.writeHead(200, { 'content-type': 'text/csv' }).end('city,temp\nOslo,-3\n'));
  await new Promise<void>((r) => fileServer.listen(0, '127.0.0.1', r));
  fileUrl = `http://127.0.0.1:${(fileServer.address() as AddressInfo).port}/weather.csv`;
});
after(async () => {
  fileServer.close();
  await h.close();
});

/** Sets the running service's LAGOON_FETCH_ALLOW_HOSTS list (read once at start; the chat pipeline shares it). */
const allowHosts = (...hosts: string[]) => void h.svc.chatDeps.fetchAllowHosts?.splice(0, Infinity, ...hosts);

const withFile = (file: Record<string, unknown>) =>
  post(h, '/chat/completions', key, {
    model: 'scripted-model',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Summarise [[echo_request]]' },
          { type: 'file', file },
        ],
      },
    ],
  });
const dataUrl = (mime: string, data: Buffer | string) => `data:${mime};base64,${Buffer.from(data).toString('base64')}`;
const userText = (r: { json: any }) => JSON.parse(r.json.choices[0].message.content).at(-1).content as string;

test('a text file becomes text in the user message', async () => {
  const r = await withFile({ filename: 'notes.md', file_data: dataUrl('text/markdown', '# Notes\nThe lagoon is calm.') });
  assert.equal(r.status, 200);
  const text = userText(r);
  assert.match(text, /^Summarise \[\[echo_request\]\]\n\n\[File: notes\.md \(md\)\]/);
  assert.match(text, /The lagoon is calm\./);
});

test('a DOCX file is converted to its text', async () => {
  const doc = new Document({ sections: [{ children: [new Paragraph('Quarterly figures rose by nine percent.')] }] });
  const buf = await Packer.toBuffer(doc);
  const r = await withFile({ filename: 'report.docx', file_data: dataUrl('application/vnd.openxmlformats-officedocument.wordprocessingml.document', buf) });
  assert.equal(r.status, 200);
  assert.match(userText(r), /Quarterly figures rose by nine percent\./);
});

test('corrupt, unsupported and malformed files are 400s that say why', async () => {
  const corrupt = await withFile({
    filename: 'broken.docx',
    file_data: dataUrl('application/octet-stream', Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(40, 7)])),
  });
  assert.equal(corrupt.status, 400);
  assert.match(corrupt.json.code, /CORRUPTED_FILE|UNSUPPORTED_FILE/);
  const binary = await withFile({ filename: 'blob.bin', file_data: dataUrl('application/octet-stream', Buffer.from([0, 159, 146, 150, 0, 1, 2, 255, 254])) });
  assert.equal(binary.status, 400);
  assert.equal(binary.json.code, 'UNSUPPORTED_FILE');
  const bad = await withFile({ file_data: 'data:text/plain;base64' });
  assert.equal(bad.status, 400);
  const noData = await withFile({ file_id: 'file-123' });
  assert.equal(noData.status, 400);
  assert.match(noData.json.error, /file_data/);
});

test('a file URL on loopback is refused unless allowlisted', async () => {
  const refused = await withFile({ filename: 'weather.csv', file_data: fileUrl });
  assert.equal(refused.status, 400);
  assert.match(refused.json.error, /private|loopback|not allowed/i);
  allowHosts('127.0.0.1');
  const ok = await withFile({ filename: 'weather.csv', file_data: fileUrl });
  assert.equal(ok.status, 200, JSON.stringify(ok.json));
  assert.match(userText(ok), /Oslo,-3/);
});

test('image URLs are fetched safely by Lagoon and sent to the model inline', async () => {
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
  const img = http.createServer((req, res) =>
    req.url === '/pic.png'
      ? res.writeHead(200, { 'content-type': 'image/png' }).end(png)
      : res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'),
  );
  await new Promise<void>((r) => img.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(img.address() as AddressInfo).port}`;
  const send = (url: string) =>
    post(h, '/chat/completions', key, {
      model: 'vision-model',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
    });
  try {
    allowHosts();
    const refused = await send(`${base}/pic.png`);
    assert.equal(refused.status, 400, 'a loopback image is refused');
    assert.equal((await send('http://169.254.169.254/latest/meta-data/')).status, 400, 'cloud metadata is refused');
    allowHosts('127.0.0.1');
    const ok = await send(`${base}/pic.png`);
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    const sent = h.engine.requests.at(-1)!.body.messages.at(-1).content[1];
    assert.equal(sent.image_url.url, `data:image/png;base64,${png.toString('base64')}`);
    const notImage = await send(`${base}/page.html`);
    assert.equal(notImage.status, 400);
    assert.match(notImage.json.error, /not an image/);
    assert.equal((await send('ftp://example.com/x.png')).status, 400);
  } finally {
    img.close();
  }
});
