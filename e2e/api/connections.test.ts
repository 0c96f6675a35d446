// Defences at the connection level, against a real server on loopback: oversized headers and slow clients get our
// JSON error body (not a bare status line, not a socket held for a minute), one address cannot hoard connections,
// and requests their own clients abandoned do not count towards the abuse block.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Harness, post, startHarness } from '../support/harness.ts';

/** Opens a socket, sends `bytes`, and resolves with everything received until the server closes it (or `ms` pass). */
function exchange(h: Harness, bytes: string, ms = 5000): Promise<{ text: string; closedAfterMs: number }> {
  const { port } = new URL(h.origin);
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    const timer = setTimeout(() => socket.destroy(), ms);
    socket.on('close', () => (clearTimeout(timer), resolve({ text, closedAfterMs: Date.now() - t0 })));
    socket.on('error', reject);
  });
}

describe('connections', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({
      env: { LAGOON_HEADERS_TIMEOUT_MS: '1000', LAGOON_MAX_CONNECTIONS_PER_IP: '40' },
      limits: { abuse: { maxFailures: 3, windowSeconds: 30, blockSeconds: 30 } },
    });
  });
  after(() => h?.close());

  test('a ~60 KB header gets 431 in our error body', async () => {
    const { text } = await exchange(h, `GET /api/v1/models HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(60_000)}\r\n\r\n`);
    assert.match(text, /^HTTP\/1\.1 431 /);
    assert.match(text, /"code":"REQUEST_HEADER_FIELDS_TOO_LARGE"/);
  });

  test('malformed HTTP gets 400 in our error body', async () => {
    const { text } = await exchange(h, 'NOT HTTP AT ALL\r\n\r\n');
    assert.match(text, /^HTTP\/1\.1 400 /);
    assert.match(text, /"code":"INVALID_REQUEST"/);
  });

  test('slow headers (slowloris): the connection is answered 408 and closed near the header deadline', async () => {
    const { text, closedAfterMs } = await exchange(h, 'GET /api/v1/models HTTP/1.1\r\nHost: x\r\nX-Slow: ', 10_000);
    assert.ok(closedAfterMs < 5000, `held ${closedAfterMs} ms with a 1 s header deadline`);
    if (text) assert.match(text, /"code":"CLIENT_TIMEOUT"/);
  });

  test('one address holds at most its connection budget; the next is answered 503 and closed, and freed slots are reusable', async () => {
    const { port } = new URL(h.origin);
    // 45 at once against a budget of 40 (idle sockets are cut at the 1 s header deadline, so they open together).
    const sockets: net.Socket[] = [];
    const answers = await Promise.all(
      Array.from({ length: 45 }, () => {
        const s = net.connect(Number(port), '127.0.0.1');
        sockets.push(s);
        return new Promise<string>((resolve) => {
          let text = '';
          s.on('data', (d) => (text += d.toString()));
          s.on('error', () => undefined);
          setTimeout(() => resolve(text), 400);
        });
      }),
    );
    for (const s of sockets) s.destroy();
    const refused = answers.filter(Boolean);
    assert.ok(refused.length >= 5, `${refused.length} of 45 refused`);
    for (const text of refused) {
      assert.match(text, /^HTTP\/1\.1 503 /);
      assert.match(text, /"code":"TOO_MANY_CONNECTIONS"/);
    }
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await fetch(`${h.origin}/api/v1/models`)).status, 200);
  });

  test('requests abandoned by their client are not failed attempts: no abuse block after many cancellations', async () => {
    const { key } = await h.newAccount();
    for (let i = 0; i < 10; i++) {
      const ac = new AbortController();
      const pending = fetch(`${h.base}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'scripted-model', messages: [{ role: 'user', content: 'x [[delay:2000]]' }] }),
        signal: ac.signal,
      }).catch(() => undefined);
      setTimeout(() => ac.abort(), 50);
      await pending;
    }
    await new Promise((r) => setTimeout(r, 300)); // the server sees each close and ends its request
    const r = await post(h, '/chat/completions', key, { model: 'scripted-model', messages: [{ role: 'user', content: 'hi [[reply:ok]]' }] });
    assert.equal(r.status, 200, r.text);
  });
});
