import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppApiError } from '../api/client.ts';
import { openTurnStream, parseGenerationEvent, readGenerationEvents, SseParser } from './sse.ts';

test('events split across chunks, CRLF, comments and multi-line data', () => {
  const p = new SseParser();
  assert.deepEqual(p.push(': keep-alive\n\ndata: {"type":"del'), []);
  assert.deepEqual(p.push('ta","content":"a"}\r\n\r\ndata: 1\ndata: 2\n\n'), ['{"type":"delta","content":"a"}', '1\n2']);
});

test('bad JSON and shapeless data are skipped', () => {
  assert.equal(parseGenerationEvent('{nope'), null);
  assert.equal(parseGenerationEvent('42'), null);
  assert.deepEqual(parseGenerationEvent('{"type":"delta","content":"x"}'), { type: 'delta', content: 'x' });
});

test('a byte stream is decoded across chunk boundaries (multi-byte characters included)', async () => {
  const bytes = new TextEncoder().encode('data: {"type":"delta","content":"é€"}\n\ndata: {"type":"done","message":{}}\n\n');
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < bytes.length; i += 7) c.enqueue(bytes.slice(i, i + 7));
      c.close();
    },
  });
  const seen: string[] = [];
  await readGenerationEvents(body, (ev) => seen.push(ev.type === 'delta' ? `delta:${ev.content}` : ev.type));
  assert.deepEqual(seen, ['delta:é€', 'done']);
});

const bodyOf = (text: string) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode(text));
      c.close();
    },
  });

test('a streamed turn: the turn first, then the answer events for whoever follows it; anything else is a failed request', async () => {
  const res = new Response(
    bodyOf(
      'data: {"type":"turn","turn":{"assistant":{"id":"a1"}}}\n\n: keep-alive\n\ndata: {"type":"delta","content":"hi"}\n\ndata: {"type":"done","message":{}}\n\n',
    ),
  );
  const stream = await openTurnStream<{ assistant: { id: string } }>(res);
  assert.equal(stream.turn.assistant.id, 'a1');
  const seen: string[] = [];
  await stream.events((ev) => seen.push(ev.type));
  assert.deepEqual(seen, ['delta', 'done']);
  await assert.rejects(openTurnStream(new Response(bodyOf('data: {"type":"delta","content":"x"}\n\n'))), (e: unknown) => e instanceof AppApiError);
  await assert.rejects(openTurnStream(new Response(bodyOf(''))), (e: unknown) => e instanceof AppApiError);
});
