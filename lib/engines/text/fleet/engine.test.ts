// The OpenAI-compatible engine with a fleet, against real scripted replicas on loopback: what is retried (a failure
// before the first byte) and what is not (a stream already under way), and replicas weighed by their own vLLM
// /metrics.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ScriptedEngine, startScriptedEngine } from '../../../../e2e/support/scripted-engine/server.ts';
import { createOpenAIEngine } from '../openai.ts';
import type { Engine, EngineChunk, EngineRequest } from '../types.ts';
import { EngineError } from '../types.ts';
import { fleetSnapshots } from './fleet.ts';

let replicas: ScriptedEngine[];
before(async () => {
  replicas = await Promise.all([0, 1, 2].map((i) => startScriptedEngine({ name: `r${i}` })));
});
after(() => Promise.all(replicas.map((r) => r.close())));

const request = (content: string): EngineRequest => ({
  requestId: `t-${Math.random()}`,
  model: 'scripted',
  messages: [{ role: 'user', content }],
  params: { max_tokens: 64, n: 1 },
  signal: new AbortController().signal,
});

function engine(name: string, fleet: Record<string, number> = {}): Engine {
  return createOpenAIEngine({ baseUrls: replicas.map((r) => r.url), model: 'scripted', name, timeoutMs: 5_000, fleet });
}

const reset = () => {
  for (const r of replicas) r.reset();
};

test('a stream cut after its first event is not retried: the client already has part of an answer', async () => {
  const e = engine('cut-stream');
  try {
    reset();
    const got: EngineChunk[] = [];
    await assert.rejects(
      (async () => {
        for await (const c of e.stream(request('cut me [[fail_mid]]'))) got.push(c);
      })(),
      (err: unknown) => err instanceof EngineError && err.kind === 'failed',
    );
    assert.ok(got.length > 0, 'some of the stream arrived');
    assert.equal(
      replicas.reduce((n, r) => n + r.requests.length, 0),
      1,
      'one replica only',
    );
  } finally {
    await e.close?.();
  }
});

test('a 503 before the first byte is retried on another replica; a non-streamed answer cut midway too', async () => {
  const e = engine('retry-503');
  try {
    replicas[0].failStatus = 503;
    replicas[1].failStatus = 503;
    for (let i = 0; i < 6; i++) {
      reset();
      const r = await e.complete(request(`hello ${i}`));
      assert.equal(r.choices[0].message.content, 'Hello from the scripted engine.');
      assert.equal(replicas[2].requests.length, 1);
    }
    // All three failing: the request fails after three attempts, with the upstream's own kind.
    replicas[2].failStatus = 503;
    reset();
    await assert.rejects(e.complete(request('nobody home')), (err: unknown) => err instanceof EngineError && err.kind === 'capacity');
    assert.equal(
      replicas.reduce((n, r) => n + r.requests.length, 0),
      3,
    );
    // A non-streamed answer cut midway reached the client not at all: tried on each replica in turn.
    for (const r of replicas) r.failStatus = undefined;
    reset();
    await assert.rejects(e.complete(request('cut [[fail_mid]]')), (err: unknown) => err instanceof EngineError && err.kind === 'failed');
    assert.deepEqual(
      replicas.map((r) => r.requests.length),
      [1, 1, 1],
    );
  } finally {
    for (const r of replicas) r.failStatus = undefined;
    await e.close?.();
  }
});

test('a replica whose vLLM /metrics reports a long queue gets no new requests while the others are free', async () => {
  const e = engine('weighed', { prefixChars: 0, loadEveryMs: 200 });
  try {
    replicas[1].reportedLoad = { waiting: 50, kvUsage: 0.97 };
    // The fleet reads every replica's /metrics on its next tick (one a second).
    const t0 = Date.now();
    while (fleetSnapshots().weighed?.[1]?.queue !== 50) {
      assert.ok(Date.now() - t0 < 5_000, 'the /metrics of replica 2 were not read');
      await new Promise((r) => setTimeout(r, 50));
    }
    reset();
    await Promise.all(Array.from({ length: 12 }, (_, i) => e.complete(request(`spread ${i}`))));
    assert.equal(replicas[1].requests.length, 0);
    assert.ok(replicas[0].requests.length > 0 && replicas[2].requests.length > 0);
    assert.equal(fleetSnapshots().weighed[1].kvUsage, 0.97);
  } finally {
    replicas[1].reportedLoad = { waiting: 0, kvUsage: 0 };
    await e.close?.();
  }
});
