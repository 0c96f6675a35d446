// The media phases of `npm run bench` (BENCH_ONLY=images,jobs), each on its own Lagoon with the default catalogue:
//   images: the demo generator, the ESRGAN upscaler (TensorFlow.js on WebAssembly, in a worker thread) and the lanczos
//     upscaler (sharp), each as wall time and the server's CPU (all its threads, /proc) per output megapixel, through
//     /api/v1; and lanczos done directly with sharp in this process beside it: the API's own share of an image.
//   jobs: demo video jobs (3 s, 256p: ffmpeg encodes them) on PostgreSQL: queue-to-start latency with a free worker
//     on the instance that queued the job and on another instance (it finds the job by polling), and jobs per minute
//     for a batch with one instance against two, each with LAGOON_JOB_WORKERS workers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { createTestDatabase } from '../../e2e/support/pg.ts';
import { median, quantile } from './client.ts';
import { freePort, start, stop, treeCpuMs } from './procs.ts';
import { spawn, type ChildProcess } from 'node:child_process';

const IMAGE_REPEATS = Number(process.env.BENCH_IMAGE_REPEATS ?? 3);
export const JOBS = Number(process.env.BENCH_JOBS ?? 8);
const WORKERS = Number(process.env.BENCH_JOB_WORKERS ?? 2);

interface Server {
  child: ChildProcess;
  base: string;
  key: string;
}

function lagoonCli(env: Record<string, string>, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['scripts/lagoon.ts', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (b: Buffer) => (out += b.toString()));
    c.on('exit', (code) => (code === 0 ? resolve(out.trim().split('\n').at(-1)!) : reject(new Error(`lagoon ${args.join(' ')} failed`))));
  });
}

/** Lagoon servers sharing `env` (one data dir, or one database), the first creating an account with credit and a key. */
async function servers(env: Record<string, string>, count: number): Promise<Server[]> {
  const accountId = await lagoonCli(env, 'account', 'create', '--name', 'bench-media');
  const key = await lagoonCli(env, 'key', 'create', '--account', accountId, '--type', 'INFERENCE');
  await lagoonCli(env, 'credit', 'grant', '--account', accountId, '--usd', '100000');
  const out: Server[] = [];
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    const child = await start(['scripts/serve.ts'], { ...env, PORT: String(port), HOST: '127.0.0.1', LAGOON_NO_APP: '1' }, /listening/);
    out.push({ child, base: `http://127.0.0.1:${port}/api/v1`, key });
  }
  return out;
}

async function post(s: Server, route: string, body: unknown): Promise<Response> {
  const res = await fetch(`${s.base}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${route}: ${res.status} ${await res.text()}`);
  return res;
}

export interface ImageFigure {
  name: string;
  outMp: number;
  wallMs: number;
  cpuMs: number;
  msPerMp: number;
  cpuMsPerMp: number;
}

/** Times `fn` `repeats` times after one warm-up, with the server's CPU over the timed calls. */
async function timed(pid: number | undefined, repeats: number, fn: () => Promise<unknown>): Promise<{ wallMs: number; cpuMs: number }> {
  // Without a server (work done in this process) there is no server CPU to report: NaN prints as n/a.
  await fn();
  const walls: number[] = [];
  // The server and its worker processes (ESRGAN runs in one).
  const c0 = pid ? treeCpuMs(pid) : 0;
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    await fn();
    walls.push(performance.now() - t0);
  }
  const c1 = pid ? treeCpuMs(pid) : 0;
  return { wallMs: median(walls), cpuMs: pid ? (c1 - c0) / repeats : Number.NaN };
}

export async function imagesPhase(): Promise<ImageFigure[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-bench-media-'));
  const [s] = await servers({ LAGOON_DATA_DIR: dir }, 1);
  const pid = s.child.pid!;
  try {
    const figures: ImageFigure[] = [];
    const add = (name: string, side: number, t: { wallMs: number; cpuMs: number }) => {
      const outMp = (side * side) / 1e6;
      figures.push({ name, outMp, ...t, msPerMp: t.wallMs / outMp, cpuMsPerMp: t.cpuMs / outMp });
    };
    for (const side of [512, 1024]) {
      const t = await timed(pid, IMAGE_REPEATS, async () => {
        const r = await post(s, '/image/generate', {
          model: 'lagoon-demo-image',
          prompt: 'a lagoon at dawn',
          width: side,
          height: side,
          format: 'png',
          return_binary: true,
        });
        await r.arrayBuffer();
      });
      add(`generate demo ${side}²`, side, t);
    }
    // Inputs for the upscalers: a generated picture (texture to work on), resized to each input size.
    const gen = await post(s, '/image/generate', {
      model: 'lagoon-demo-image',
      prompt: 'reef and sand',
      width: 1024,
      height: 1024,
      format: 'png',
      return_binary: true,
    });
    const source = Buffer.from(await gen.arrayBuffer());
    const input = async (side: number) => (await sharp(source).resize(side, side).png().toBuffer()).toString('base64');
    for (const side of [256, 512]) {
      const image = await input(side);
      const t = await timed(pid, Math.max(1, IMAGE_REPEATS - 1), async () => {
        const r = await post(s, '/image/upscale', { model: 'esrgan-slim', image, scale: 2 });
        await r.arrayBuffer();
      });
      add(`upscale ESRGAN ${side}² → ${side * 2}²`, side * 2, t);
    }
    const big = await input(1024);
    const viaApi = await timed(pid, IMAGE_REPEATS, async () => {
      const r = await post(s, '/image/upscale', { model: 'lanczos-upscale', image: big, scale: 2 });
      await r.arrayBuffer();
    });
    add('upscale lanczos 1024² → 2048²', 2048, viaApi);
    const raw = Buffer.from(big, 'base64');
    const direct = await timed(undefined, IMAGE_REPEATS, () => sharp(raw).resize(2048, 2048, { kernel: 'lanczos3' }).png().toBuffer());
    add('lanczos 1024² → 2048², sharp directly', 2048, direct);
    return figures;
  } finally {
    await stop(s.child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface JobFigures {
  /** Queue-to-start with a free worker on the instance the job was queued on (ms, p50 and max). */
  localP50Ms: number;
  localMaxMs: number;
  /** … and when only another instance has a free worker (it finds the job by polling, LAGOON_JOB_POLL_MS). */
  remoteP50Ms: number;
  remoteMaxMs: number;
  /** A batch of JOBS queued at once: jobs per minute with one instance and with two. */
  perMinuteOne: number;
  perMinuteTwo: number;
  /** Queue-to-start of the batch with two instances (ms, p50 and p99). */
  batchP50Ms: number;
  batchP99Ms: number;
}

interface JobRow {
  created_at: string | number;
  started_at: string | number | null;
  finished_at: string | number | null;
  status: string;
}

const video = { model: 'lagoon-demo-video', prompt: 'waves', duration: 3, resolution: '256p' };

export async function jobsPhase(): Promise<JobFigures> {
  const db = await createTestDatabase();
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: db.url });
  const env = { DATABASE_URL: db.url, LAGOON_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-bench-jobs-')), LAGOON_MAX_JOBS_PER_ACCOUNT: '1000' };
  let running: Server[] = [];
  try {
    const queue = async (s: Server): Promise<string> => ((await (await post(s, '/video/queue', video)).json()) as { queue_id: string }).queue_id;
    const rowsOf = async (ids: string[]) => {
      const { rows } = await client.query<JobRow & { id: string }>('SELECT id, created_at, started_at, finished_at, status FROM jobs WHERE id = ANY($1)', [
        ids,
      ]);
      return ids.map((id) => rows.find((r) => r.id === id));
    };
    const until = async (ids: string[], done: (r: JobRow) => boolean) => {
      for (;;) {
        const rows = await rowsOf(ids);
        if (rows.every((r) => r && done(r))) return rows as JobRow[];
        if (rows.some((r) => r?.status === 'failed')) throw new Error('a bench job failed');
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const finished = (r: JobRow) => r.finished_at !== null && r.status !== 'running' && r.status !== 'queued';
    const waitMs = (r: JobRow) => Number(r.started_at) - Number(r.created_at);

    // One instance, one worker: each job queued on it with its worker free (it starts at once, no poll).
    running = await servers({ ...env, LAGOON_JOB_WORKERS: '1' }, 1);
    await client.connect();
    const local: number[] = [];
    for (let i = 0; i < 4; i++) local.push(waitMs((await until([await queue(running[0])], finished))[0]));
    // A second instance joins with a free worker while the first one's worker is busy: a job queued on the first
    // waits for the second's poll.
    running.push(...(await servers({ ...env, LAGOON_JOB_WORKERS: '1' }, 1)));
    const remote: number[] = [];
    for (let i = 0; i < 4; i++) {
      const busy = await queue(running[0]);
      await until([busy], (r) => r.started_at !== null);
      const id = await queue(running[0]);
      const rows = await until([busy, id], finished);
      remote.push(waitMs(rows[1]));
    }
    await Promise.all(running.map((s) => stop(s.child)));
    running = [];

    // Throughput: a batch queued at once, with one instance of WORKERS workers, then two.
    const batch = async (count: number) => {
      running = await servers({ ...env, LAGOON_JOB_WORKERS: String(WORKERS) }, count);
      const t0 = Date.now();
      const ids = await Promise.all(Array.from({ length: JOBS }, (_, i) => queue(running[i % running.length])));
      const rows = await until(ids, finished);
      const last = Math.max(...rows.map((r) => Number(r.finished_at)));
      await Promise.all(running.map((s) => stop(s.child)));
      running = [];
      return { perMinute: (JOBS * 60_000) / (last - t0), waits: rows.map(waitMs) };
    };
    const one = await batch(1);
    const two = await batch(2);
    return {
      localP50Ms: median(local),
      localMaxMs: Math.max(...local),
      remoteP50Ms: median(remote),
      remoteMaxMs: Math.max(...remote),
      perMinuteOne: one.perMinute,
      perMinuteTwo: two.perMinute,
      batchP50Ms: median(two.waits),
      batchP99Ms: quantile(two.waits, 0.99),
    };
  } finally {
    await Promise.all(running.map((s) => stop(s.child)));
    await client.end().catch(() => undefined);
    await db.drop();
    fs.rmSync(env.LAGOON_DATA_DIR, { recursive: true, force: true });
  }
}
