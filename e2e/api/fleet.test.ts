// A model with several replicas (a fleet, lib/engines/text/fleet/) against four real scripted replicas on loopback:
// a chat keeps to the replica holding its prefix, a replica failing before its first byte costs no request, one
// killed mid-run loses none, and /metrics and /readyz report each replica.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, post, sseEvents, startHarness } from '../support/harness.ts';

let h: Harness;
let key: string;
before(async () => {
  h = await startHarness({ replicas: 4, env: { LAGOON_METRICS: '1' } });
  ({ key } = await h.newAccount({ usd: 50 }));
});
after(() => h.close());

const chat = (messages: unknown[], extra: Record<string, unknown> = {}) => post(h, '/chat/completions', key, { model: 'replicated-model', messages, ...extra });
const reset = () => {
  for (const r of h.replicas) r.reset();
};
/** A replica's state in the fleet, as loopback /readyz reports it. */
async function stateOf(r: { url: string }): Promise<string> {
  const ready = await (await fetch(`${h.origin}/readyz`)).json();
  return ready.checks.replicas['replicated-model'].find((x: { replica: string }) => x.replica === new URL(r.url).host).state;
}
/** The replicas that received a chat request since the last reset, by index. */
const served = () => h.replicas.flatMap((r, i) => (r.requests.length ? [i] : []));

describe('prefix affinity', () => {
  test('every turn of a chat goes to the replica that served its first; other chats spread over the fleet', async () => {
    const homes = new Set<number>();
    for (let c = 0; c < 16; c++) {
      const first = [{ role: 'user', content: `Conversation ${c}: tell me about otters.` }];
      reset();
      const r1 = await chat(first);
      assert.equal(r1.status, 200);
      const [home] = served();
      homes.add(home);
      let turns = [...first, { role: 'assistant', content: r1.json.choices[0].message.content }];
      for (let t = 0; t < 3; t++) {
        turns = [...turns, { role: 'user', content: `Turn ${t}` }];
        reset();
        const r = await chat(turns);
        assert.equal(r.status, 200);
        assert.deepEqual(served(), [home], `conversation ${c}, turn ${t} left its replica`);
        turns = [...turns, { role: 'assistant', content: r.json.choices[0].message.content }];
      }
    }
    assert.ok(homes.size >= 3, `16 conversations used only replicas ${[...homes]}`);
  });
});

describe('failures before the first byte', () => {
  test('a replica answering 500 costs no request: each one is retried on another, streamed or not; it is ejected, then probed back', async () => {
    const messages = [{ role: 'user', content: 'Which replica are you?' }];
    reset();
    await chat(messages);
    const [home] = served();
    const failing = h.replicas[home];
    failing.failStatus = 500;
    try {
      for (let i = 0; i < 3; i++) {
        reset();
        const r = await chat(messages, i % 2 ? { stream: true } : {});
        assert.equal(r.status, 200, r.text);
        if (i % 2) assert.equal(sseEvents(r.text).at(-1), '[DONE]');
        else assert.equal(r.json.choices[0].message.content, 'Hello from the scripted engine.');
        assert.equal(failing.requests.length, 1, 'the failing replica was tried first');
        assert.equal(served().length, 2, 'and one other replica answered');
      }
      // Three failures in a row: ejected, so the next request goes straight elsewhere.
      reset();
      assert.equal((await chat(messages)).status, 200);
      assert.equal(failing.requests.length, 0);
      assert.equal(await stateOf(failing), 'ejected');
    } finally {
      failing.failStatus = undefined;
    }
    // Its ejection over (2 s by default), its probe answers: back in rotation, and the chat goes home again.
    const t0 = Date.now();
    while ((await stateOf(failing)) !== 'healthy') {
      assert.ok(Date.now() - t0 < 8_000, 'the replica was not probed back within 8 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    reset();
    assert.equal((await chat(messages)).status, 200);
    assert.deepEqual(served(), [home]);
  });

  test('a bad request is not retried: the replica answered', async () => {
    reset();
    const r = await chat([{ role: 'user', content: 'no [[status:400]]' }]);
    assert.equal(r.status, 400);
    assert.equal(served().length, 1);
  });
});

describe('observability', () => {
  test('/metrics and loopback /readyz show every replica and its state', async () => {
    const m = await fetch(`${h.origin}/metrics`);
    const text = await m.text();
    for (const r of h.replicas) {
      const host = new URL(r.url).host;
      assert.match(text, new RegExp(`lagoon_replica_up\\{model="replicated-model",replica="${host}",state="(healthy|ejected|probing)"\\} 1`));
      assert.match(text, new RegExp(`lagoon_replica_outstanding\\{model="replicated-model",replica="${host}"\\} 0`));
    }
    assert.match(text, /lagoon_replica_attempts_total\{model="replicated-model",replica="[^"]+",outcome="failed"\} [1-9]/);
    const ready = await (await fetch(`${h.origin}/readyz`)).json();
    const replicas = ready.checks.replicas['replicated-model'];
    assert.equal(replicas.length, 4);
    for (const r of replicas) assert.match(r.state, /^(healthy|ejected|probing)$/);
  });
});

describe('a replica killed mid-run', () => {
  test('loses no request: the ones in flight on it and the ones sent after are answered by the others', async () => {
    // Each replica answers after 400 ms, so what reaches the victim is still waiting there when it dies.
    for (const r of h.replicas) r.delayMs = 400;
    const victim = h.replicas[2];
    victim.reset();
    const requests = Array.from({ length: 48 }, (_, i) => chat([{ role: 'user', content: `Killed-replica run, chat ${i}` }], i % 2 ? { stream: true } : {}));
    // Kill it as soon as some of its share is waiting there (arrived less than 300 ms ago: not yet answered).
    const waiting = () => victim.requests.filter((q) => Date.now() - q.at < 300).length;
    const t0 = Date.now();
    while (waiting() < 2 && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 5));
    const inFlight = waiting();
    await victim.close();
    const later = Array.from({ length: 16 }, (_, i) => chat([{ role: 'user', content: `After the kill, chat ${i}` }]));
    const results = await Promise.all([...requests, ...later]);
    for (const r of h.replicas) r.delayMs = 0;
    assert.ok(inFlight > 0, 'the killed replica held requests when it died');
    const lost = results.filter((r) => r.status !== 200 || (r.json === undefined && sseEvents(r.text).at(-1) !== '[DONE]'));
    assert.equal(lost.length, 0, `lost: ${lost.map((r) => `${r.status} ${r.text.slice(0, 200)}`).join('; ')}`);
  });
});
