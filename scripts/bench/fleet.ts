#!/usr/bin/env node
// The engine fleet's benchmark (`npm run bench:fleet`): four scripted replicas on loopback behind one OpenAI-compatible
// engine with its fleet (lib/engines/text/fleet/), driven in process (the router's own behaviour, without the
// gateway's work around it). Three figures:
// - killed: BENCH_FLEET_REQUESTS requests (half streamed) at BENCH_FLEET_CONCURRENCY at once, every replica answering
//   after 40 ms; one replica is closed (its sockets cut) a third of the way in. Lost requests (goal 0) and retries.
// - prefix: 64 conversations of 6 turns each, 8 at once; a hit is a turn sent to a replica that served an earlier
//   turn of its conversation (so its KV cache holds the prefix). Prefix-affine routing against random routing.
// - p99: one replica answers in 200 ms, the others in 20 ms, each serving BENCH_FLEET_SLOTS (8) requests at once and
//   queueing the rest (as a GPU server's batch does); distinct chats at BENCH_FLEET_CONCURRENCY at once; latency
//   percentiles for round-robin, least-outstanding, and the default (prefix-affine, bounded, least-outstanding).
// Last line: `bench-fleet: …` with every figure.
import { randomUUID } from 'node:crypto';
import { type FleetOptions, fleetSnapshots } from '../../lib/engines/text/fleet/fleet.ts';
import { createOpenAIEngine } from '../../lib/engines/text/openai.ts';
import type { Engine, EngineMessage } from '../../lib/engines/text/types.ts';
import { type ScriptedEngine, startScriptedEngine } from '../../e2e/support/scripted-engine/server.ts';

const env = process.env;
const REQUESTS = Number(env.BENCH_FLEET_REQUESTS ?? 600);
const CONCURRENCY = Number(env.BENCH_FLEET_CONCURRENCY ?? 32);
/** Requests each replica of the p99 figure serves at once (a GPU server's batch); the rest queue there. */
const SLOTS = Number(env.BENCH_FLEET_SLOTS ?? 8);
const summary: Record<string, string | number> = {};

type Policy = Pick<FleetOptions, 'policy' | 'affinity'>;

function engineFor(replicas: ScriptedEngine[], name: string, fleet: Policy = {}): Engine {
  return createOpenAIEngine({
    baseUrls: replicas.map((r) => r.url),
    model: 'scripted',
    name,
    connections: 256,
    timeoutMs: 10_000,
    fleet: { ...fleet, ejectMs: 1_000, loadEveryMs: 0 },
  });
}

/** One chat; resolves to its latency in ms, or throws what the engine threw. */
async function ask(engine: Engine, messages: EngineMessage[], stream: boolean, requestId = randomUUID()): Promise<number> {
  const t0 = performance.now();
  const req = { requestId, model: 'scripted', messages, params: { max_tokens: 64, n: 1 }, signal: new AbortController().signal };
  if (stream) {
    let done = false;
    for await (const c of engine.stream(req)) if (c.choices[0]?.finish_reason) done = true;
    if (!done) throw new Error('the stream ended without a finish reason');
  } else {
    const r = await engine.complete(req);
    if (!r.choices[0]?.message) throw new Error('no message');
  }
  return performance.now() - t0;
}

/** Runs `n` jobs, `c` at once. */
async function pool(n: number, c: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(c, n) }, async () => {
      while (next < n) await job(next++);
    }),
  );
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

async function replicasOf(delays: number[], slots?: number): Promise<ScriptedEngine[]> {
  return Promise.all(delays.map((d, i) => startScriptedEngine({ name: `replica-${i}`, delayMs: d, slots })));
}

async function killed(): Promise<void> {
  const replicas = await replicasOf([40, 40, 40, 40]);
  const engine = engineFor(replicas, 'bench-killed');
  let done = 0;
  let lost = 0;
  const errors = new Map<string, number>();
  let inFlightAtKill = 0;
  const victim = replicas[2];
  try {
    await pool(REQUESTS, CONCURRENCY, async (i) => {
      if (i === Math.floor(REQUESTS / 3)) {
        inFlightAtKill = fleetSnapshots()['bench-killed'][2].outstanding;
        void victim.close();
      }
      try {
        await ask(engine, [{ role: 'user', content: `killed run, chat ${i}` }], i % 2 === 1);
        done++;
      } catch (e) {
        lost++;
        const m = (e as Error).message;
        errors.set(m, (errors.get(m) ?? 0) + 1);
      }
    });
    const snap = fleetSnapshots()['bench-killed'];
    const retries = snap.reduce((n, r) => n + r.retries, 0);
    console.log(
      `killed: ${REQUESTS} requests (half streamed), ${CONCURRENCY} at once, replica 3 of 4 closed after ${Math.floor(REQUESTS / 3)} (${inFlightAtKill} in flight on it): ${done} answered, ${lost} lost, ${retries} retried on another replica; states ${snap.map((r) => r.state).join(', ')}`,
    );
    for (const [m, n] of errors) console.log(`  lost ${n}: ${m}`);
    Object.assign(summary, { killed_lost: lost, killed_retries: retries, killed_in_flight: inFlightAtKill });
  } finally {
    await engine.close?.();
    await Promise.all(replicas.map((r) => r.close()));
  }
}

async function prefix(name: string, policy: Policy): Promise<number> {
  const replicas = await replicasOf([5, 5, 5, 5]);
  const engine = engineFor(replicas, `bench-prefix-${name}`, policy);
  const CHATS = 64;
  const TURNS = 6;
  let hits = 0;
  let later = 0;
  try {
    await pool(CHATS, 8, async (c) => {
      const seen = new Set<ScriptedEngine>();
      const messages: EngineMessage[] = [
        { role: 'system', content: 'You are the benchmark assistant.' },
        { role: 'user', content: `Conversation ${c}: ${'a long shared document. '.repeat(40)}` },
      ];
      for (let t = 0; t < TURNS; t++) {
        const id = randomUUID();
        await ask(engine, messages, false, id);
        const at = replicas.find((r) => r.requests.some((q) => q.headers['x-request-id'] === id));
        if (t > 0) {
          later++;
          if (at && seen.has(at)) hits++;
        }
        if (at) seen.add(at);
        messages.push({ role: 'assistant', content: 'ok' }, { role: 'user', content: `turn ${t + 1}` });
      }
    });
  } finally {
    await engine.close?.();
    await Promise.all(replicas.map((r) => r.close()));
  }
  return (100 * hits) / later;
}

async function latency(name: string, policy: Policy): Promise<{ p50: number; p90: number; p99: number; slowShare: number }> {
  const replicas = await replicasOf([20, 20, 20, 200], SLOTS);
  const engine = engineFor(replicas, `bench-p99-${name}`, policy);
  const times: number[] = [];
  try {
    // Warm the connections, then measure.
    await pool(CONCURRENCY, CONCURRENCY, async (i) => void (await ask(engine, [{ role: 'user', content: `warm ${i}` }], false)));
    for (const r of replicas) r.reset();
    await pool(REQUESTS, CONCURRENCY, async (i) => {
      times.push(await ask(engine, [{ role: 'user', content: `load run ${name}, chat ${i}` }], i % 2 === 1));
    });
    const total = replicas.reduce((n, r) => n + r.requests.length, 0);
    return { p50: pct(times, 50), p90: pct(times, 90), p99: pct(times, 99), slowShare: (100 * replicas[3].requests.length) / total };
  } finally {
    await engine.close?.();
    await Promise.all(replicas.map((r) => r.close()));
  }
}

await killed();
const affine = await prefix('affine', {});
const random = await prefix('random', { policy: 'random', affinity: false });
console.log(`prefix: 64 conversations x 6 turns, 8 at once: hit rate ${affine.toFixed(1)} % prefix-affine, ${random.toFixed(1)} % random`);
Object.assign(summary, { prefix_hit_affine_pct: affine.toFixed(1), prefix_hit_random_pct: random.toFixed(1) });
for (const [name, policy] of [
  ['round-robin', { policy: 'round-robin', affinity: false }],
  ['least-outstanding', { affinity: false }],
  ['default', {}],
] as [string, Policy][]) {
  const l = await latency(name, policy);
  console.log(
    `p99: ${REQUESTS} chats, ${CONCURRENCY} at once, one replica of 4 at 200 ms (others 20 ms), ${SLOTS} slots each, ${name}: p50 ${l.p50.toFixed(0)} ms, p90 ${l.p90.toFixed(0)} ms, p99 ${l.p99.toFixed(0)} ms, ${l.slowShare.toFixed(1)} % sent to the slow one`,
  );
  summary[`p99_${name}_ms`] = l.p99.toFixed(0);
  summary[`p90_${name}_ms`] = l.p90.toFixed(0);
}
console.log(
  `bench-fleet: ${Object.entries(summary)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')}`,
);
