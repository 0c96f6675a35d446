// An event reply read both ways: written by the HTTP layer straight to a node response over a real socket, and read
// as the Response's Web body (as tests of the handlers read it). Both get the same frames, events sent before the
// reader came included; keep-alive comments fill a silence; a client that goes away ends the source's subscription.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { type EventSink, eventReply, feedOf } from './app-events.ts';
import { writeWebResponse } from './app.ts';

type Ev = { n: number };

/** A source the test drives: it records its sink and whether its cleanup ran. */
function source() {
  const s = { out: undefined as EventSink<Ev> | undefined, cleaned: 0 };
  const begin = (out: EventSink<Ev>) => {
    s.out = out;
    out.send({ n: 0 }); // sent before any reader attaches
    return () => {
      s.cleaned++;
    };
  };
  return { s, begin };
}

let server: http.Server;
let base: string;
let next: (() => Response) | undefined;
const served: Promise<void>[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    const response = next?.();
    if (!response) return void res.writeHead(500).end();
    served.push(writeWebResponse(req, res, response, { 'x-request-id': 'r1' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

test('written by the HTTP layer: buffered events first, then each as sent, keep-alives in a silence, the end', async () => {
  const { s, begin } = source();
  const reply = eventReply(40, begin);
  assert.ok(feedOf(reply), 'an unread event reply offers its feed');
  next = () => reply;
  const res = await fetch(`${base}/`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  assert.equal(res.headers.get('x-request-id'), 'r1', "the layer's own headers are added");
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const readUntil = async (needle: string) => {
    while (!text.includes(needle)) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  };
  await readUntil('data: {"n":0}\n\n');
  s.out!.send({ n: 1 });
  await readUntil('data: {"n":1}\n\n');
  await readUntil(': keep-alive\n\n');
  s.out!.send({ n: 2 });
  s.out!.close();
  await readUntil('data: {"n":2}\n\n');
  const { done } = await reader.read();
  assert.ok(done, 'the response ends when the source closes');
  assert.equal(s.cleaned, 1);
  await served.at(-1);
  assert.deepEqual(
    text.split('\n\n').filter((f) => f.startsWith('data:')),
    ['data: {"n":0}', 'data: {"n":1}', 'data: {"n":2}'],
  );
});

test('a client that goes away ends the subscription; the source sends into nothing after', async () => {
  const { s, begin } = source();
  next = () => eventReply(10_000, begin);
  const controller = new AbortController();
  const res = await fetch(`${base}/`, { signal: controller.signal });
  const reader = res.body!.getReader();
  await reader.read();
  controller.abort();
  await served.at(-1);
  assert.equal(s.cleaned, 1, 'cleanup ran once the client was gone');
  assert.equal(s.out!.open, false);
  s.out!.send({ n: 9 }); // a late event is dropped, not thrown
});

test('read as the Web body: the same frames; the HTTP layer cannot take it then', async () => {
  const { s, begin } = source();
  const reply = eventReply(10_000, begin);
  const reading = reply.text();
  assert.equal(feedOf(reply), undefined, 'a body being read is no longer offered to the HTTP layer');
  s.out!.send({ n: 1 });
  s.out!.close();
  assert.equal(await reading, 'data: {"n":0}\n\ndata: {"n":1}\n\n');
  assert.equal(s.cleaned, 1);
});

test('a source that ends before anyone reads still gives everything it sent', async () => {
  const reply = eventReply<Ev>(10_000, (out) => {
    out.send({ n: 0 });
    out.send({ n: 1 });
    out.close();
  });
  next = () => reply;
  const res = await fetch(`${base}/`);
  assert.equal(await res.text(), 'data: {"n":0}\n\ndata: {"n":1}\n\n');
});
