// The benchmark's world: two mock upstreams (the scripted engine, answering at once and after 20 ms), Lagoon on
// embedded SQLite (or DATABASE_URL) with auth, rate limiting, credit and usage all on, and the Portkey gateway
// 1.15.2 (`--headless`, no auth or billing) pointed at the same mocks, and a bare node:http + undici pass-through
// (bare-proxy.ts: the cost of the hop itself). Each is a Target the same client drives.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Target } from './client.ts';
import { spawnAnvil, stopSpawnedAnvil } from '../../e2e/support/chains/anvil.ts';
import { rpcBody } from './rpc.ts';
import { cli, freePort, start, stop } from './procs.ts';
import { spawn } from 'node:child_process';

export interface World {
  /** Against the mock that answers at once: direct, the bare pass-through and Portkey (when started), Lagoon. */
  fast: Target[];
  /** The same against the mock answering after 20 ms. */
  slow: Target[];
  lagoon: ChildProcess;
  portkey?: ChildProcess;
  /** The Portkey instance the streaming runs use (scripts/bench/portkey-native-response.ts). */
  portkeyStreams?: ChildProcess;
  /** With `rpc`: anvil called directly, and through Lagoon's JSON-RPC proxy (and `before`'s, with a baseline). */
  rpc?: Target[];
  /** The catalogue and rate-limit files Lagoon was started with, for another Lagoon of the same setup. */
  lagoonEnv: Record<string, string>;
  /** Starts a child process (in `cwd`, default this checkout) that is stopped (and its data removed) with the world. */
  spawn(args: string[], env: Record<string, string>, ready: RegExp, cwd?: string): Promise<ChildProcess>;
  close(): Promise<void>;
}

/** The slow mock's delay before it answers. */
export const SLOW_MOCK_MS = 20;

const PORTKEY = 'node_modules/@portkey-ai/gateway/build/start-server.js';

/**
 * `baseline`: the directory of another checkout (a git worktree of an earlier revision, with node_modules) whose
 * Lagoon runs beside this one as the target `before`, on its own data dir: a change measured in one run.
 */
export async function startWorld(opts: {
  portkey: boolean;
  bare: boolean;
  profileDir?: string;
  /** Records Lagoon's on-CPU samples with Linux perf into this directory (lagoon.perf.data; perf-top.ts reads it). */
  perfDir?: string;
  baseline?: string;
  rpc?: boolean;
}): Promise<World> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-bench-'));
  const baselineDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-bench-before-'));
  const children: ChildProcess[] = [];
  let anvil: Awaited<ReturnType<typeof spawnAnvil>> | undefined;
  let perf: ChildProcess | undefined;
  const close = async () => {
    // perf first, while Lagoon (whose JIT map it reads at report time from /tmp/perf-<pid>.map) is still up.
    if (perf) await stop(perf, 30_000, 'SIGINT');
    await Promise.all(children.map((c) => stop(c)));
    await stopSpawnedAnvil(anvil);
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(baselineDir, { recursive: true, force: true });
  };
  try {
    const [fastPort, slowPort, lagoonPort, portkeyPort, portkeyStreamsPort, bareFastPort, bareSlowPort, beforePort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    children.push(await start(['e2e/support/scripted-engine.ts', '--port', String(fastPort)], {}, /http:\/\//));
    children.push(await start(['e2e/support/scripted-engine.ts', '--port', String(slowPort), '--delay-ms', String(SLOW_MOCK_MS)], {}, /http:\/\//));
    const model = (id: string, port: number) => ({
      id,
      name: id,
      type: 'text',
      tier: 'XS',
      pricing: { input_usd: 0.1, output_usd: 0.2, input_diem: 0.1, output_diem: 0.2 },
      context_length: 8192,
      max_completion_tokens: 64,
      traits: [],
      // Room for the 1,000-stream run: admission is not what is measured.
      engine: { kind: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, model: 'scripted', maxConcurrency: 2048 },
    });
    const catalogue = path.join(dataDir, 'models.json');
    fs.writeFileSync(catalogue, JSON.stringify({ models: [model('bench-fast', fastPort), model('bench-slow', slowPort)] }));
    // Rate limiting stays on (its counting is part of the measured path) with figures the load cannot reach.
    const limits = path.join(dataDir, 'limits.json');
    fs.writeFileSync(limits, JSON.stringify({ text: { default: { XS: { rpm: 100_000_000, tpm: 1_000_000_000_000 } } } }));
    // The JSON-RPC proxy's upstream: a bare anvil, its per-caller caps out of the load's reach.
    if (opts.rpc) anvil = await spawnAnvil();
    const rpcEnv: Record<string, string> = anvil
      ? { LAGOON_RPC_UPSTREAMS: `base-mainnet=${anvil.rpcUrl}`, LAGOON_RPC_REQUESTS_PER_MINUTE: '100000000', LAGOON_RPC_CREDITS_PER_DAY: '1000000000000' }
      : {};
    const lagoonEnv = { LAGOON_MODELS: catalogue, LAGOON_RATE_LIMITS: limits, LAGOON_MAX_CONNECTIONS_PER_IP: '4096', ...rpcEnv };
    /** A Lagoon server of the checkout in `cwd` on its own data dir, with an account, credit and a key. */
    const startLagoon = async (cwd: string | undefined, dir: string, port: number, profile: string[]) => {
      const accountId = await cli(cwd, dir, 'account', 'create', '--name', 'bench');
      const key = await cli(cwd, dir, 'key', 'create', '--account', accountId, '--type', 'INFERENCE');
      await cli(cwd, dir, 'credit', 'grant', '--account', accountId, '--usd', '100000');
      const child = await start(
        [...profile, 'scripts/serve.ts'],
        {
          PORT: String(port),
          HOST: '127.0.0.1',
          LAGOON_DATA_DIR: dir,
          LAGOON_NO_APP: process.env.BENCH_WITH_APP ? '0' : '1',
          // One load generator opens the 1,000 streams from one address (LAGOON_MAX_CONNECTIONS_PER_IP).
          ...lagoonEnv,
        },
        /listening/,
        cwd,
      );
      children.push(child);
      return { child, key };
    };
    // Sampled every 100 µs: a request at concurrency 1 takes about a millisecond of CPU.
    // perf needs the JIT's symbol map (/tmp/perf-<pid>.map), interpreted frames included, to name JavaScript
    // functions; V8's own log, which the map's flag also starts, goes nowhere.
    const profile = opts.perfDir
      ? ['--perf-basic-prof', '--interpreted-frames-native-stack', '--logfile=/dev/null']
      : opts.profileDir
        ? ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${opts.profileDir}`]
        : [];
    const { child: lagoon, key } = await startLagoon(undefined, dataDir, lagoonPort, profile);
    if (opts.perfDir) perf = recordPerf(lagoon.pid!, opts.perfDir);
    const before = opts.baseline ? await startLagoon(opts.baseline, baselineDir, beforePort, []) : undefined;
    let portkey: ChildProcess | undefined;
    let portkeyStreams: ChildProcess | undefined;
    if (opts.portkey) {
      // Its postinstall (patch-package) has nothing to do here: the published package carries no patches/ folder
      // (its patches are for its own dev tree), and the build starts as is.
      portkey = await start([PORTKEY, '--headless', `--port=${portkeyPort}`], { NODE_ENV: 'production' }, /Ready for connections/);
      children.push(portkey);
      portkeyStreams = await start(
        ['--import', './scripts/bench/portkey-native-response.ts', PORTKEY, '--headless', `--port=${portkeyStreamsPort}`],
        { NODE_ENV: 'production' },
        /Ready for connections/,
      );
      children.push(portkeyStreams);
    }

    const bare = new Map<number, ChildProcess>();
    if (opts.bare) {
      for (const [port, upstream] of [
        [bareFastPort, fastPort],
        [bareSlowPort, slowPort],
      ]) {
        const child = await start(['scripts/bench/bare-proxy.ts', '--port', String(port), '--upstream', `http://127.0.0.1:${upstream}`], {}, /bare proxy/);
        children.push(child);
        bare.set(upstream, child);
      }
    }

    const json = { 'content-type': 'application/json' };
    const targets = (upstream: number, lagoonModel: string): Target[] => {
      const direct: Target = {
        name: 'direct',
        url: `http://127.0.0.1:${upstream}/v1/chat/completions`,
        headers: { ...json, authorization: 'Bearer direct' },
        body: (prompt, extra) => JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: prompt }], max_tokens: 16, ...extra }),
      };
      const viaLagoon: Target = {
        name: 'lagoon',
        pid: lagoon.pid,
        url: `http://127.0.0.1:${lagoonPort}/api/v1/chat/completions`,
        headers: { ...json, authorization: `Bearer ${key}` },
        body: (prompt, extra) => JSON.stringify({ model: lagoonModel, messages: [{ role: 'user', content: prompt }], max_tokens: 16, ...extra }),
      };
      const viaPortkey: Target = {
        name: 'portkey',
        url: `http://127.0.0.1:${portkeyPort}/v1/chat/completions`,
        pid: portkey?.pid,
        streamUrl: `http://127.0.0.1:${portkeyStreamsPort}/v1/chat/completions`,
        streamPid: portkeyStreams?.pid,
        headers: { ...json, authorization: 'Bearer sk-bench', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `http://127.0.0.1:${upstream}/v1` },
        body: direct.body,
      };
      const viaBare: Target = {
        name: 'bare',
        url: `http://127.0.0.1:${upstream === fastPort ? bareFastPort : bareSlowPort}/v1/chat/completions`,
        pid: bare.get(upstream)?.pid,
        headers: direct.headers,
        body: direct.body,
      };
      const viaBefore: Target | undefined = before && {
        ...viaLagoon,
        name: 'before',
        pid: before.child.pid,
        url: `http://127.0.0.1:${beforePort}/api/v1/chat/completions`,
        headers: { ...json, authorization: `Bearer ${before.key}` },
      };
      return [direct, ...(opts.bare ? [viaBare] : []), ...(portkey ? [viaPortkey] : []), ...(viaBefore ? [viaBefore] : []), viaLagoon];
    };
    const rpcTarget = (name: string, pid: number | undefined, port: number, key: string): Target => ({
      name,
      pid,
      url: `http://127.0.0.1:${port}/api/v1/crypto/rpc/base-mainnet`,
      headers: { ...json, authorization: `Bearer ${key}` },
      body: rpcBody,
    });
    const rpc = anvil && [
      { name: 'direct', url: anvil.rpcUrl, headers: json, body: rpcBody },
      ...(before ? [rpcTarget('before', before.child.pid, beforePort, before.key)] : []),
      rpcTarget('lagoon', lagoon.pid, lagoonPort, key),
    ];
    const spawnChild = async (args: string[], env: Record<string, string>, ready: RegExp, cwd?: string) => {
      const child = await start(args, env, ready, cwd);
      children.push(child);
      return child;
    };
    return {
      fast: targets(fastPort, 'bench-fast'),
      slow: targets(slowPort, 'bench-slow'),
      lagoon,
      portkey,
      portkeyStreams,
      rpc,
      lagoonEnv,
      spawn: spawnChild,
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * Linux perf sampling the process's on-CPU time (the cpu-clock software event: this VM has no hardware counters) with
 * call graphs. Unlike V8's --cpu-prof, which samples wall-clock time and so charges a system call with the time the
 * thread waited to run again after it (on two busy cores, a socket write that wakes the client shows as 18 % of a
 * profile whose process spends 11 % in the kernel altogether), perf counts only CPU the process used.
 */
function recordPerf(pid: number, dir: string): ChildProcess {
  fs.mkdirSync(dir, { recursive: true });
  const out = path.join(dir, 'lagoon.perf.data');
  const child = spawn('perf', ['record', '-q', '-F', '1999', '-e', 'cpu-clock', '-g', '-p', String(pid), '-o', out], { stdio: 'ignore' });
  child.on('error', (e) => console.error(`perf could not start (${e.message}): install linux-perf for BENCH_PERF`));
  return child;
}
