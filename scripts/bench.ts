#!/usr/bin/env node
// Benchmark: POST /chat/completions through Lagoon (auth, rate limiting, credit reservation, settlement and usage
// recording all on)
// against a direct call to the same mock upstream (the scripted engine).
//   1. added latency at concurrency 1: interleaved rounds of sequential requests, direct vs. Lagoon;
//   2. requests/s at 64 connections, the mock answering after 20 ms.
// Last line: `bench: added_p50_ms=… added_p99_ms=… rps_c64=…`.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { request } from 'undici';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

function start(cmd: string[], env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cmd, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      if (ready.test(out)) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`${cmd.join(' ')} exited with ${code}: ${out}`)));
  });
}

const cli = (dataDir: string, ...args: string[]) =>
  new Promise<string>((resolve, reject) => {
    const c = spawn(process.execPath, ['scripts/lagoon.ts', ...args], {
      env: { ...process.env, LAGOON_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    c.stdout.on('data', (b: Buffer) => (out += b.toString()));
    c.on('exit', (code) => (code === 0 ? resolve(out.trim().split('\n').at(-1)!) : reject(new Error(`lagoon ${args.join(' ')} failed`))));
  });

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const median = (xs: number[]) => quantile(xs, 0.5);

async function timeOne(url: string, headers: Record<string, string>, body: string): Promise<number> {
  const t0 = process.hrtime.bigint();
  const res = await request(url, { method: 'POST', headers, body });
  await res.body.arrayBuffer();
  if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function rps(url: string, headers: Record<string, string>, body: string): Promise<{ rps: number; errors: number; p99: number }> {
  const r = await autocannon({ url, method: 'POST', headers, body, connections: 64, duration: SECONDS, pipelining: 1 });
  return { rps: r.requests.average, errors: r.errors + r.non2xx, p99: r.latency.p99 };
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-bench-'));
const children: ChildProcess[] = [];
try {
  const [fastPort, slowPort, lagoonPort] = [await freePort(), await freePort(), await freePort()];
  children.push(await start(['e2e/support/scripted-engine.ts', '--port', String(fastPort)], {}, /http:\/\//));
  children.push(await start(['e2e/support/scripted-engine.ts', '--port', String(slowPort), '--delay-ms', '20'], {}, /http:\/\//));
  const model = (id: string, port: number) => ({
    id,
    name: id,
    type: 'text',
    tier: 'XS',
    pricing: { input_usd: 0.1, output_usd: 0.2, input_diem: 0.1, output_diem: 0.2 },
    context_length: 8192,
    max_completion_tokens: 64,
    traits: [],
    engine: { kind: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, model: 'scripted' },
  });
  const catalogue = path.join(dataDir, 'models.json');
  fs.writeFileSync(catalogue, JSON.stringify({ models: [model('bench-fast', fastPort), model('bench-slow', slowPort)] }));
  // Rate limiting stays on (its counting is part of the measured path) with figures the load cannot reach.
  const limits = path.join(dataDir, 'limits.json');
  fs.writeFileSync(limits, JSON.stringify({ text: { default: { XS: { rpm: 100_000_000, tpm: 1_000_000_000_000 } } } }));
  const accountId = await cli(dataDir, 'account', 'create', '--name', 'bench');
  const key = await cli(dataDir, 'key', 'create', '--account', accountId, '--type', 'INFERENCE');
  await cli(dataDir, 'credit', 'grant', '--account', accountId, '--usd', '100000');
  children.push(
    await start(
      ['scripts/serve.ts'],
      {
        PORT: String(lagoonPort),
        HOST: '127.0.0.1',
        LAGOON_DATA_DIR: dataDir,
        LAGOON_MODELS: catalogue,
        LAGOON_RATE_LIMITS: limits,
        LAGOON_NO_APP: process.env.BENCH_WITH_APP ? '0' : '1',
      },
      /listening/,
    ),
  );

  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const body = (m: string) => JSON.stringify({ model: m, messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 16 });
  const direct = {
    url: `http://127.0.0.1:${fastPort}/v1/chat/completions`,
    body: JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 16 }),
  };
  const lagoon = { url: `http://127.0.0.1:${lagoonPort}/api/v1/chat/completions`, body: body('bench-fast') };

  // Warm-up: JIT, connection pools, SQLite page cache.
  for (let i = 0; i < 300; i++) {
    await timeOne(direct.url, headers, direct.body);
    await timeOne(lagoon.url, headers, lagoon.body);
  }
  const directAll: number[] = [];
  const lagoonAll: number[] = [];
  const added: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const d: number[] = [];
    const l: number[] = [];
    for (let i = 0; i < PER_ROUND; i++) {
      d.push(await timeOne(direct.url, headers, direct.body));
      l.push(await timeOne(lagoon.url, headers, lagoon.body));
    }
    directAll.push(...d);
    lagoonAll.push(...l);
    added.push(median(l) - median(d));
  }
  const addedP50 = median(added);
  const addedP99 = quantile(lagoonAll, 0.99) - quantile(directAll, 0.99);
  console.log(
    `latency c=1: direct p50 ${median(directAll).toFixed(3)} ms p99 ${quantile(directAll, 0.99).toFixed(3)} ms; lagoon p50 ${median(lagoonAll).toFixed(3)} ms p99 ${quantile(lagoonAll, 0.99).toFixed(3)} ms`,
  );

  const directRps = await rps(`http://127.0.0.1:${slowPort}/v1/chat/completions`, headers, direct.body);
  const lagoonRps = await rps(`http://127.0.0.1:${lagoonPort}/api/v1/chat/completions`, headers, body('bench-slow'));
  console.log(
    `throughput c=64, 20 ms mock, ${SECONDS} s: direct ${directRps.rps.toFixed(0)} req/s (p99 ${directRps.p99} ms); lagoon ${lagoonRps.rps.toFixed(0)} req/s (p99 ${lagoonRps.p99} ms, ${lagoonRps.errors} errors)`,
  );
  if (lagoonRps.errors > 0) console.log('warning: some requests through Lagoon failed during the throughput run');
  console.log(`bench: added_p50_ms=${addedP50.toFixed(3)} added_p99_ms=${addedP99.toFixed(3)} rps_c64=${lagoonRps.rps.toFixed(0)}`);
} finally {
  for (const c of children) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
