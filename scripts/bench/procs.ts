// The benchmark's processes: ports, starting and stopping children, and what /proc says about their memory and CPU.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** What each started child had printed when it was ready (its address, what it made). */
export const readyOutput = new WeakMap<ChildProcess, string>();

/** Starts `node …args` (in `cwd`, default this checkout); resolves once its stdout matches `ready`. */
export function start(args: string[], env: Record<string, string>, ready: RegExp, cwd?: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const onData = (b: Buffer) => {
      if (out.length < 10_000) out += b.toString();
      if (!ready.test(out)) return;
      // From here its output (a log line per request) is only drained: the load generator spends no time on it.
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      readyOutput.set(child, out);
      resolve(child);
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${out}`)));
  });
}

/** Stops a child and waits for it to exit (a CPU profile is written on exit). */
export function stop(child: ChildProcess, ms = 10_000, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

/** The operator CLI (of the checkout in `cwd`) against a data directory; its last output line (an id or a key). */
export const cli = (cwd: string | undefined, dataDir: string, ...args: string[]) =>
  new Promise<string>((resolve, reject) => {
    const c = spawn(process.execPath, ['scripts/lagoon.ts', ...args], {
      cwd,
      env: { ...process.env, LAGOON_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    c.stdout.on('data', (b: Buffer) => (out += b.toString()));
    c.on('exit', (code) => (code === 0 ? resolve(out.trim().split('\n').at(-1)!) : reject(new Error(`lagoon ${args.join(' ')} failed`))));
  });

/** Resident memory of a process, in MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

const TICKS_PER_S = 100; // USER_HZ: 100 on every Linux build we run on

/** A process's /proc stat fields after the parenthesised command name (which may contain spaces). */
const statFields = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
};
const ticksMs = (ticks: string) => (Number(ticks) * 1000) / TICKS_PER_S;

/** CPU time a process has used so far, in ms, in user space and in the kernel (Linux /proc: utime, stime). */
export function cpuMs(pid: number): { user: number; system: number } {
  const f = statFields(pid);
  return { user: ticksMs(f[11]), system: ticksMs(f[12]) };
}

/** CPU time of a process and its live descendants (a worker process such as ESRGAN's), plus what the exited children
 *  it waited for used, in ms (Linux /proc: each task's children list, stat's cutime and cstime). */
export function treeCpuMs(pid: number): number {
  let total = 0;
  const walk = (p: number) => {
    try {
      const f = statFields(p);
      total += ticksMs(f[11]) + ticksMs(f[12]) + ticksMs(f[13]) + ticksMs(f[14]);
      for (const task of fs.readdirSync(`/proc/${p}/task`)) {
        const kids = fs.readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').trim();
        if (kids) for (const kid of kids.split(' ')) walk(Number(kid));
      }
    } catch {
      // Exited between the listing and the read: its time is in its parent's cutime once waited for.
    }
  };
  walk(pid);
  return total;
}

/** Samples a process's RSS every `everyMs` until stopped; the peak and the samples. */
export function sampleRss(pid: number, everyMs = 200) {
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(rssMiB(pid)), everyMs);
  return {
    samples,
    stop(): { peak: number; samples: number[] } {
      clearInterval(timer);
      samples.push(rssMiB(pid));
      return { peak: Math.max(...samples), samples };
    },
  };
}
