// A bounded soak: steady mixed load (JSON answers and short streams) for a fixed time while the server's RSS is
// sampled each second. Growth is the median of the last quarter of samples minus that of the first (the first
// samples, while the heap settles, are skipped), so one GC's timing does not decide it.
import { median, streamOnce, type Target, timeOne } from './client.ts';
import { rssMiB } from './procs.ts';
import { FAST_STREAM } from './streams.ts';

export interface Soak {
  seconds: number;
  requests: number;
  failures: number;
  startMiB: number;
  endMiB: number;
  peakMiB: number;
  growthMiB: number;
  /** The median RSS of each successive tenth of the run: whether it levels off or keeps climbing. */
  shape: number[];
}

export async function soak(t: Target, pid: number, seconds: number, workers = 16): Promise<Soak> {
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssMiB(pid)), 1000);
  const until = Date.now() + seconds * 1000;
  let requests = 0;
  let failures = 0;
  const json = t.body('Say hello.', { max_tokens: 16 });
  const stream = t.body(FAST_STREAM, { stream: true, max_tokens: 64 });
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = w; Date.now() < until; i++) {
        requests++;
        try {
          if (i % 2) await timeOne(t.url, t.headers, json);
          else if (!(await streamOnce(t.url, t.headers, stream)).ok) failures++;
        } catch {
          failures++;
        }
      }
    }),
  );
  clearInterval(sampler);
  samples.push(rssMiB(pid));
  const settled = samples.slice(Math.min(samples.length - 1, Math.floor(samples.length / 10)));
  const quarter = Math.max(1, Math.floor(settled.length / 4));
  const first = median(settled.slice(0, quarter));
  const last = median(settled.slice(-quarter));
  const tenth = Math.max(1, Math.floor(samples.length / 10));
  const shape = Array.from({ length: Math.ceil(samples.length / tenth) }, (_, i) => median(samples.slice(i * tenth, (i + 1) * tenth)));
  return { seconds, requests, failures, startMiB: first, endMiB: last, peakMiB: Math.max(...samples), growthMiB: last - first, shape };
}
