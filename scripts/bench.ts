#!/usr/bin/env node
// Benchmark: the same mock upstream (the scripted engine) called directly, through Lagoon (auth, rate limiting,
// credit reservation, settlement and usage recording all on) and through the Portkey gateway 1.15.2 (none of that),
// every figure from one run so the ratios hold whatever the machine's load:
//   1. added latency at concurrency 1 (interleaved rounds);
//   2. requests/s at 64 connections, the mock answering after 20 ms (BENCH_SECONDS per target, in interleaved windows);
//   3. streams: added time to first token at c=1; BENCH_STREAMS (1,000) concurrent streams of 64 deltas 20 ms apart
//      (all must complete; the worst gap beyond direct's worst), CPU per relayed event, RSS idle and streaming;
//   4. a bounded soak (BENCH_SOAK_S seconds, 20 by default; 300 for docs/BENCHMARKS.md's figures) reporting RSS growth.
// A bare node:http + undici pass-through (bench/bare-proxy.ts) runs beside them as the floor: what the extra hop
// alone costs. Each relay's CPU (user + system from /proc) is divided by the requests and events it relayed: CPU per
// request and per event, steadier than rates on a shared machine. Two more phases: `rpc`, the JSON-RPC proxy against
// anvil directly (bench/rpc.ts), and `app`, the browser app's chat path against /api/v1's for the same answer
// (bench/app-chat.ts; BENCH_APP_CHATS of each, and the baseline's in BENCH_APP_ROUNDS alternating rounds); `images` and `jobs` (bench/media.ts): image generation and upscaling per
// megapixel, and job queue-to-start and jobs per minute on one and two instances. BENCH_ONLY=latency,throughput,
// streams,rpc,app,images,jobs,soak picks phases;
// BENCH_PORTKEY=0 leaves the peer out, BENCH_BARE=0 the pass-through; BENCH_BASELINE=DIR runs the Lagoon of another checkout (a worktree of an earlier
// revision) beside this one as `before`; BENCH_PROFILE=DIR
// writes Lagoon's CPU profile there (node --cpu-prof; summarise with scripts/bench/profile-top.ts); BENCH_PERF=DIR
// records its on-CPU samples with Linux perf instead (DIR/lagoon.perf.data; summarise with scripts/bench/perf-top.ts).
// Last line: `bench: added_p50_ms=… added_p99_ms=… rps_c64=… …` with the peer's figures and the ratios.
import { CONNECTIONS, rps } from './bench/client.ts';
import { latencyRounds } from './bench/latency.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AppWho, appVsApi } from './bench/app-chat.ts';
import { cpuMs, freePort, readyOutput, rssMiB } from './bench/procs.ts';
import { rpcPhase } from './bench/rpc.ts';
import { soak } from './bench/soak.ts';
import { concurrentStreams, describeStreams, median, ttftRounds } from './bench/streams.ts';
import { SLOW_MOCK_MS, startWorld } from './bench/world.ts';
import { imagesPhase, JOBS, jobsPhase } from './bench/media.ts';

const env = process.env;
const ROUNDS = Number(env.BENCH_ROUNDS ?? 7);
const PER_ROUND = Number(env.BENCH_PER_ROUND ?? 200);
const SECONDS = Number(env.BENCH_SECONDS ?? 10);
const THROUGHPUT_ROUNDS = Number(env.BENCH_THROUGHPUT_ROUNDS ?? 5);
const STREAMS = Number(env.BENCH_STREAMS ?? 1000);
const SOAK_S = Number(env.BENCH_SOAK_S ?? 20);
const APP_CHATS = Number(env.BENCH_APP_CHATS ?? 200);
const APP_ROUNDS = Number(env.BENCH_APP_ROUNDS ?? 4);
const only = new Set((env.BENCH_ONLY ?? 'latency,throughput,streams,rpc,app,images,jobs,soak').split(','));

const world = await startWorld({
  portkey: env.BENCH_PORTKEY !== '0',
  bare: env.BENCH_BARE !== '0',
  profileDir: env.BENCH_PROFILE,
  perfDir: env.BENCH_PERF,
  baseline: env.BENCH_BASELINE,
  rpc: only.has('rpc'),
});
const f = (n: number | undefined, d = 2) => (n === undefined || Number.isNaN(n) ? 'n/a' : n.toFixed(d));
const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || b === 0 ? undefined : a / b);
const summary: Record<string, string> = {};
try {
  const lagoonPid = world.lagoon.pid!;
  const portkeyPid = world.portkey?.pid;
  // Idle: after start and a few requests (JIT, pools and caches warm), nothing in flight.
  if (only.has('latency')) {
    const lat = await latencyRounds(world.fast, ROUNDS, PER_ROUND);
    for (const [name, l] of lat) {
      console.log(
        `latency c=1 ${name}: p50 ${f(l.p50, 3)} ms p99 ${f(l.p99, 3)} ms${l.addedP50 === undefined ? '' : `; added p50 ${f(l.addedP50, 3)} ms, added p99 ${f(l.addedP99, 3)} ms`}`,
      );
    }
    const [l, p, b, o] = [lat.get('lagoon')!, lat.get('portkey'), lat.get('bare'), lat.get('before')];
    Object.assign(summary, {
      added_p50_ms: f(l.addedP50, 3),
      added_p99_ms: f(l.addedP99, 3),
      portkey_added_p50_ms: f(p?.addedP50, 3),
      portkey_added_p99_ms: f(p?.addedP99, 3),
      bare_added_p50_ms: f(b?.addedP50, 3),
      before_added_p50_ms: f(o?.addedP50, 3),
      p50_vs_portkey: f(ratio(l.addedP50, p?.addedP50)),
      p99_vs_portkey: f(ratio(l.addedP99, p?.addedP99)),
    });
  }
  const idle = { lagoon: rssMiB(lagoonPid), portkey: portkeyPid ? rssMiB(portkeyPid) : undefined };
  console.log(`rss idle: lagoon ${f(idle.lagoon, 0)} MiB${idle.portkey ? `, portkey ${f(idle.portkey, 0)} MiB` : ''}`);
  summary.rss_idle_mb = f(idle.lagoon, 0);

  if (only.has('throughput')) {
    // Interleaved windows, one per target in turn, as the latency rounds: the machine's load drifts over a minute,
    // and one long window per target measured that drift (±15 % between identical servers) more than the servers.
    const windows = Array.from({ length: world.slow.length }, () => [] as (Awaited<ReturnType<typeof rps>> & { cpuMs?: number })[]);
    // One unmeasured second per target first: a cold server's JIT and pools are not its steady cost per request
    // (the first window of a cold Lagoon ran 25 % slower than the next two).
    for (const t of world.slow) await rps(t.url, t.headers, t.body('Say hello.'), 1);
    for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
      for (const [i, t] of world.slow.entries()) {
        // CPU of the relaying process over its own window only (user + system from /proc): independent of whatever
        // else the machine runs, unlike requests/s.
        const c0 = t.pid ? cpuMs(t.pid) : undefined;
        const w = await rps(t.url, t.headers, t.body('Say hello.'), SECONDS / THROUGHPUT_ROUNDS);
        const c1 = t.pid ? cpuMs(t.pid) : undefined;
        windows[i].push({ ...w, cpuMs: c0 && c1 ? c1.user + c1.system - c0.user - c0.system : undefined });
      }
    }
    const got = new Map(
      world.slow.map((t, i) => {
        const w = windows[i];
        const requests = w.reduce((n, r) => n + r.requests, 0);
        const cpu = t.pid ? w.reduce((n, r) => n + (r.cpuMs ?? 0), 0) : undefined;
        return [
          t.name,
          {
            rps: w.reduce((n, r) => n + r.rps, 0) / w.length,
            p99: median(w.map((r) => r.p99)),
            errors: w.reduce((n, r) => n + r.errors, 0),
            cpuUsPerRequest: cpu !== undefined && requests ? (cpu * 1000) / requests : undefined,
          },
        ];
      }),
    );
    for (const [name, r] of got) {
      const spread = windows[world.slow.findIndex((t) => t.name === name)].map((x) => x.rps.toFixed(0)).join(' ');
      console.log(
        `throughput c=64, 20 ms mock, ${SECONDS} s in ${THROUGHPUT_ROUNDS} windows, ${name}: ${r.rps.toFixed(0)} req/s (windows ${spread}; p99 ${r.p99} ms, ${r.errors} errors)${r.cpuUsPerRequest === undefined ? '' : `; ${f(r.cpuUsPerRequest, 0)} µs CPU per request`}`,
      );
      if (r.errors > 0) console.log(`warning: some requests through ${name} failed during the throughput run`);
    }
    const [d, l, p, b, o] = [got.get('direct')!, got.get('lagoon')!, got.get('portkey'), got.get('bare'), got.get('before')];
    // No target can pass this: each connection waits for its answer, and the mock takes SLOW_MOCK_MS to give it.
    const ceiling = (CONNECTIONS * 1000) / SLOW_MOCK_MS;
    console.log(
      `throughput ceiling: ${ceiling.toFixed(0)} req/s (${CONNECTIONS} connections ÷ ${SLOW_MOCK_MS} ms); direct reached ${f((100 * d.rps) / ceiling, 0)} %` +
        (p ? `; 2.5× the peer would be ${(2.5 * p.rps).toFixed(0)} req/s, ${f((250 * p.rps) / ceiling, 0)} % of the ceiling` : ''),
    );
    Object.assign(summary, {
      rps_ceiling: ceiling.toFixed(0),
      rps_c64: l.rps.toFixed(0),
      direct_rps_c64: d.rps.toFixed(0),
      portkey_rps_c64: p ? p.rps.toFixed(0) : 'n/a',
      bare_rps_c64: b ? b.rps.toFixed(0) : 'n/a',
      before_rps_c64: o ? o.rps.toFixed(0) : 'n/a',
      rps_vs_portkey: f(ratio(l.rps, p?.rps)),
      rps_vs_direct: f(ratio(l.rps, d.rps)),
      cpu_us_per_req: f(l.cpuUsPerRequest, 0),
      portkey_cpu_us_per_req: f(p?.cpuUsPerRequest, 0),
      bare_cpu_us_per_req: f(b?.cpuUsPerRequest, 0),
      before_cpu_us_per_req: f(o?.cpuUsPerRequest, 0),
      cpu_req_vs_portkey: f(ratio(l.cpuUsPerRequest, p?.cpuUsPerRequest)),
      cpu_req_vs_bare: f(ratio(l.cpuUsPerRequest, b?.cpuUsPerRequest)),
    });
  }

  if (only.has('streams')) {
    const ttft = await ttftRounds(world.fast, Math.max(20, Math.floor(PER_ROUND / 2)));
    const direct = median(ttft.get('direct')!);
    for (const [name, xs] of ttft)
      console.log(`ttft c=1 ${name}: p50 ${f(median(xs), 3)} ms${name === 'direct' ? '' : ` (added ${f(median(xs) - direct, 3)} ms)`}`);
    summary.ttft_added_ms = f(median(ttft.get('lagoon')!) - direct, 3);
    if (ttft.has('portkey')) summary.portkey_ttft_added_ms = f(median(ttft.get('portkey')!) - direct, 3);
    if (ttft.has('bare')) summary.bare_ttft_added_ms = f(median(ttft.get('bare')!) - direct, 3);
    if (ttft.has('before')) summary.before_ttft_added_ms = f(median(ttft.get('before')!) - direct, 3);

    const runs = new Map<string, Awaited<ReturnType<typeof concurrentStreams>>>();
    for (const t of world.slow) {
      const r = await concurrentStreams(t, STREAMS);
      runs.set(t.name, r);
      console.log(`streams x${STREAMS} (64 deltas, 20 ms apart) ${describeStreams(t.name, r)}`);
    }
    const [d, l, p, b, o] = [runs.get('direct')!, runs.get('lagoon')!, runs.get('portkey'), runs.get('bare'), runs.get('before')];
    Object.assign(summary, {
      streams_completed: `${l.completed}/${STREAMS}`,
      stream_gap_over_direct_ms: f(l.maxGapMs - d.maxGapMs, 0),
      portkey_streams_completed: p ? `${p.completed}/${STREAMS}` : 'n/a',
      portkey_stream_gap_over_direct_ms: p ? f(p.maxGapMs - d.maxGapMs, 0) : 'n/a',
      cpu_us_per_chunk: f(l.cpuUsPerEvent, 1),
      portkey_cpu_us_per_chunk: f(p?.cpuUsPerEvent, 1),
      bare_cpu_us_per_chunk: f(b?.cpuUsPerEvent, 1),
      before_cpu_us_per_chunk: f(o?.cpuUsPerEvent, 1),
      chunk_cpu_vs_portkey: f(ratio(l.cpuUsPerEvent, p?.cpuUsPerEvent)),
      chunk_cpu_vs_bare: f(ratio(l.cpuUsPerEvent, b?.cpuUsPerEvent)),
      rss_streams_mb: f(l.peakRssMiB, 0),
    });
  }

  if (only.has('rpc') && world.rpc) {
    const r = await rpcPhase(world.rpc, ROUNDS, PER_ROUND, SECONDS, THROUGHPUT_ROUNDS);
    console.log(
      `rpc eth_blockNumber c=1: direct p50 ${f(r.directP50Ms, 3)} ms; through the proxy added p50 ${f(r.addedP50Ms, 3)} ms, added p99 ${f(r.addedP99Ms, 3)} ms`,
    );
    for (const [name, x] of r.rps)
      console.log(
        `rpc c=${CONNECTIONS}, ${SECONDS} s in ${THROUGHPUT_ROUNDS} windows, ${name}: ${x.rps.toFixed(0)} calls/s (p99 ${x.p99} ms, ${x.errors} errors)${x.cpuUsPerCall === undefined ? '' : `; ${f(x.cpuUsPerCall, 0)} µs CPU per call`}`,
      );
    const [d, l, o] = [r.rps.get('direct')!, r.rps.get('lagoon')!, r.rps.get('before')];
    Object.assign(summary, {
      rpc_added_p50_ms: f(r.addedP50Ms, 3),
      rpc_rps_c64: l.rps.toFixed(0),
      rpc_direct_rps_c64: d.rps.toFixed(0),
      rpc_rps_vs_direct: f(ratio(l.rps, d.rps)),
      rpc_cpu_us_per_call: f(l.cpuUsPerCall, 0),
      before_rpc_cpu_us_per_call: f(o?.cpuUsPerCall, 0),
    });
  }

  if (only.has('app')) {
    // Its own Lagoon with the app's API on (scripts/bench/app-server.ts): the same catalogue, limits and mock; with a
    // baseline, that checkout's too, the two measured in alternating rounds so both see the same load.
    const dirs: string[] = [];
    try {
      const startApp = async (cwd: string | undefined) => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-bench-app-'));
        dirs.push(dir);
        const port = await freePort();
        const ready = /bench app on (\S+) (\{.*\})\n/;
        const child = await world.spawn(
          [
            ...(env.BENCH_PROFILE && !cwd ? ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${env.BENCH_PROFILE}`] : []),
            'scripts/bench/app-server.ts',
          ],
          { ...world.lagoonEnv, PORT: String(port), HOST: '127.0.0.1', LAGOON_DATA_DIR: dir, LAGOON_NO_APP: '0' },
          ready,
          cwd,
        );
        const m = ready.exec(readyOutput.get(child) ?? '')!;
        return { base: m[1], pid: child.pid!, who: JSON.parse(m[2]) as AppWho };
      };
      const servers = [
        { name: 'lagoon', s: await startApp(undefined) },
        ...(env.BENCH_BASELINE ? [{ name: 'before', s: await startApp(env.BENCH_BASELINE) }] : []),
      ];
      const rounds = servers.length > 1 ? APP_ROUNDS : 1;
      const sums = new Map(servers.map((x) => [x.name, { appCpuUs: 0, apiCpuUs: 0, appWallMs: 0, apiWallMs: 0, chats: 0 }]));
      for (let r = 0; r < rounds; r++) {
        for (const { name, s } of r % 2 ? [...servers].reverse() : servers) {
          const a = await appVsApi(s.base, s.pid, s.who, 'bench-fast', Math.ceil(APP_CHATS / rounds));
          const t = sums.get(name)!;
          for (const k of ['appCpuUs', 'apiCpuUs', 'appWallMs', 'apiWallMs'] as const) t[k] += a[k] * a.chats;
          t.chats += a.chats;
        }
      }
      const per = (name: string) => {
        const t = sums.get(name);
        return t && { app: t.appCpuUs / t.chats, api: t.apiCpuUs / t.chats, appMs: t.appWallMs / t.chats, apiMs: t.apiWallMs / t.chats, chats: t.chats };
      };
      for (const { name } of servers) {
        const a = per(name)!;
        console.log(
          `app chat vs API (${name}), ${a.chats} sequential streamed answers each: /api/app ${f(a.app, 0)} µs CPU per chat (${f(a.appMs, 2)} ms), /api/v1 ${f(a.api, 0)} µs (${f(a.apiMs, 2)} ms); app ${f(ratio(a.app, a.api))}× the API's CPU`,
        );
      }
      const [a, o] = [per('lagoon')!, per('before')];
      Object.assign(summary, {
        app_cpu_us_per_chat: f(a.app, 0),
        api_cpu_us_per_chat: f(a.api, 0),
        app_vs_api_cpu: f(ratio(a.app, a.api)),
        before_app_cpu_us_per_chat: f(o?.app, 0),
        before_api_cpu_us_per_chat: f(o?.api, 0),
        before_app_vs_api_cpu: f(ratio(o?.app, o?.api)),
      });
    } finally {
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  if (only.has('images')) {
    const figs = await imagesPhase();
    for (const x of figs) {
      console.log(
        `images ${x.name}: ${f(x.wallMs, 0)} ms, ${f(x.cpuMs, 0)} ms server CPU; per output megapixel ${f(x.msPerMp, 0)} ms wall, ${f(x.cpuMsPerMp, 0)} ms CPU`,
      );
    }
    const by = (prefix: string) => figs.find((x) => x.name.startsWith(prefix));
    const gen = by('generate demo 1024'),
      esr = by('upscale ESRGAN 512'),
      api = by('upscale lanczos'),
      direct = by('lanczos 1024');
    Object.assign(summary, {
      generate_ms_per_mp: f(gen?.msPerMp, 0),
      esrgan_ms_per_mp: f(esr?.msPerMp, 0),
      lanczos_ms_per_mp: f(api?.msPerMp, 0),
      esrgan_vs_lanczos: f(ratio(esr?.msPerMp, api?.msPerMp), 1),
      lanczos_api_vs_direct: f(ratio(api?.wallMs, direct?.wallMs)),
    });
  }

  if (only.has('jobs')) {
    const j = await jobsPhase();
    console.log(
      `jobs (demo video, 3 s at 256p, PostgreSQL): queue-to-start with a free worker ${f(j.localP50Ms, 0)} ms p50 (max ${f(j.localMaxMs, 0)}) on the queuing instance, ${f(j.remoteP50Ms, 0)} ms p50 (max ${f(j.remoteMaxMs, 0)}) on another; a batch of ${JOBS} at once: ${f(j.perMinuteOne, 1)} jobs/min on one instance, ${f(j.perMinuteTwo, 1)} on two (queue-to-start p50 ${f(j.batchP50Ms, 0)} ms, p99 ${f(j.batchP99Ms, 0)} ms)`,
    );
    Object.assign(summary, {
      job_start_local_ms: f(j.localP50Ms, 0),
      job_start_remote_ms: f(j.remoteP50Ms, 0),
      jobs_per_min_one: f(j.perMinuteOne, 1),
      jobs_per_min_two: f(j.perMinuteTwo, 1),
      jobs_two_vs_one: f(ratio(j.perMinuteTwo, j.perMinuteOne)),
    });
  }

  if (only.has('soak') && SOAK_S > 0) {
    const lagoon = world.fast.find((t) => t.name === 'lagoon')!;
    const s = await soak(lagoon, lagoonPid, SOAK_S);
    console.log(
      `soak ${SOAK_S} s (16 clients, JSON and streams): ${s.requests} requests, ${s.failures} failed; RSS ${f(s.startMiB, 0)} → ${f(s.endMiB, 0)} MiB (peak ${f(s.peakMiB, 0)}), growth ${f(s.growthMiB, 1)} MiB; by tenths ${s.shape.map((x) => f(x, 0)).join(' ')} MiB`,
    );
    summary.soak_s = String(SOAK_S);
    summary.soak_rss_growth_mb = f(s.growthMiB, 1);
  }
  console.log(
    `bench: ${Object.entries(summary)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
} finally {
  await world.close();
}
