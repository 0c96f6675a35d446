// Added latency at concurrency 1: interleaved rounds of sequential requests, one to each target in turn, so every
// target sees the same moments of the machine's load, in an order that turns each time (client.ts, roundOrder). Added p50 is the median of the round-median differences
// from direct; added p99 is the difference of the p99s.
import { median, quantile, roundOrder, type Target, timeOne } from './client.ts';

export interface Latency {
  p50: number;
  p99: number;
  /** Against direct (undefined for direct itself). */
  addedP50?: number;
  addedP99?: number;
}

export async function latencyRounds(targets: Target[], rounds: number, perRound: number, warmup = 300): Promise<Map<string, Latency>> {
  const bodies = targets.map((t) => t.body('Say hello.'));
  for (let i = 0; i < warmup; i++) for (const j of roundOrder(targets.length, i)) await timeOne(targets[j].url, targets[j].headers, bodies[j]);
  const all = targets.map(() => [] as number[]);
  const roundMedians = targets.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    const these = targets.map(() => [] as number[]);
    for (let i = 0; i < perRound; i++)
      for (const j of roundOrder(targets.length, i)) these[j].push(await timeOne(targets[j].url, targets[j].headers, bodies[j]));
    these.forEach((xs, j) => {
      all[j].push(...xs);
      roundMedians[j].push(median(xs));
    });
  }
  const out = new Map<string, Latency>();
  targets.forEach((t, j) => {
    const lat: Latency = { p50: median(all[j]), p99: quantile(all[j], 0.99) };
    if (j > 0) {
      lat.addedP50 = median(roundMedians[j].map((m, r) => m - roundMedians[0][r]));
      lat.addedP99 = lat.p99 - quantile(all[0], 0.99);
    }
    out.set(t.name, lat);
  });
  return out;
}
