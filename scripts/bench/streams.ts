// Streaming figures: time to first token at concurrency 1, and many concurrent paced streams (every one must finish;
// the worst gap between chunks shows a relay that stalls), with the relaying process's CPU per chunk and its RSS.
import { Agent } from 'undici';
import { median, quantile, roundOrder, streamOnce, type StreamTiming, type Target } from './client.ts';
import { cpuMs, sampleRss } from './procs.ts';

export const FAST_STREAM = '[[tokens:16]] Say hello.';
/** 64 content deltas 20 ms apart. */
export const PACED_STREAM = '[[tokens:64]][[slow:20]] Stream please.';
const STREAM_EXTRA = { stream: true, max_tokens: 64, stream_options: { include_usage: true } };

/** Interleaved sequential streams, per target, in an order that turns each time (roundOrder): the TTFT samples. */
export async function ttftRounds(targets: Target[], n: number, warmup = 50): Promise<Map<string, number[]>> {
  const out = new Map(targets.map((t) => [t.name, [] as number[]]));
  for (let i = -warmup; i < n; i++) {
    for (const j of roundOrder(targets.length, i + warmup)) {
      const t = targets[j];
      const r = await streamOnce(t.streamUrl ?? t.url, t.headers, t.body(FAST_STREAM, STREAM_EXTRA));
      if (!r.ok) throw new Error(`${t.name}: stream failed: ${r.error}`);
      if (i >= 0) out.get(t.name)!.push(r.ttftMs);
    }
  }
  return out;
}

export interface ConcurrentStreams {
  completed: number;
  failed: number;
  firstError?: string;
  /** The worst gap between chunks over all streams, and the 99th percentile of the per-stream worst gaps. */
  maxGapMs: number;
  /** Where in its stream the worst gap fell (events received before it). */
  maxGapAt: number;
  p99GapMs: number;
  events: number;
  wallMs: number;
  /** The relaying process (none for the direct run): CPU µs per relayed event, and its peak RSS while streaming. */
  cpuUsPerEvent?: number;
  /** The part of that CPU spent in the kernel (system calls). */
  systemShare?: number;
  peakRssMiB?: number;
}

/** `count` paced streams opened at once against one target, each on its own connection. */
export async function concurrentStreams(t: Target, count: number): Promise<ConcurrentStreams> {
  const relayPid = t.streamPid ?? t.pid;
  const dispatcher = new Agent({ connections: count + 16, keepAliveTimeout: 1_000, bodyTimeout: 120_000, headersTimeout: 120_000 });
  const body = t.body(PACED_STREAM, STREAM_EXTRA);
  const rss = relayPid ? sampleRss(relayPid) : undefined;
  const cpu0 = relayPid ? cpuMs(relayPid) : undefined;
  const t0 = Date.now();
  const results: StreamTiming[] = await Promise.all(Array.from({ length: count }, () => streamOnce(t.streamUrl ?? t.url, t.headers, body, dispatcher)));
  const wallMs = Date.now() - t0;
  const cpu1 = relayPid ? cpuMs(relayPid) : undefined;
  const cpu = cpu0 && cpu1 ? { user: cpu1.user - cpu0.user, system: cpu1.system - cpu0.system } : { user: 0, system: 0 };
  const peak = rss?.stop().peak;
  await dispatcher.close();
  const ok = results.filter((r) => r.ok);
  const worst = ok.reduce<StreamTiming | undefined>((w, r) => (!w || r.maxGapMs > w.maxGapMs ? r : w), undefined);
  const events = results.reduce((n, r) => n + r.events, 0);
  return {
    completed: ok.length,
    failed: count - ok.length,
    firstError: results.find((r) => !r.ok)?.error,
    maxGapMs: worst?.maxGapMs ?? 0,
    maxGapAt: worst?.maxGapAt ?? 0,
    p99GapMs: quantile(
      ok.map((r) => r.maxGapMs),
      0.99,
    ),
    events,
    wallMs,
    cpuUsPerEvent: relayPid && events ? ((cpu.user + cpu.system) * 1000) / events : undefined,
    systemShare: cpu.user + cpu.system > 0 ? cpu.system / (cpu.user + cpu.system) : undefined,
    peakRssMiB: peak,
  };
}

export const describeStreams = (name: string, s: ConcurrentStreams) =>
  `${name}: ${s.completed} completed, ${s.failed} failed${s.firstError ? ` (${s.firstError})` : ''}; worst gap ${s.maxGapMs.toFixed(0)} ms after event ${s.maxGapAt} (p99 of per-stream worst ${s.p99GapMs.toFixed(0)} ms); ${s.events} events in ${(s.wallMs / 1000).toFixed(1)} s` +
  (s.cpuUsPerEvent !== undefined
    ? `; ${s.cpuUsPerEvent.toFixed(1)} µs CPU per relayed event (${(100 * s.systemShare!).toFixed(0)} % in the kernel); peak RSS ${s.peakRssMiB!.toFixed(0)} MiB`
    : '');

export { median };
