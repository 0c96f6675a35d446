// Child processes of the audio engines (ffmpeg, pocketsphinx): spawned with arguments, never through a shell; killed
// when the request is aborted; a failure carries the tail of what the program said. A program that is not installed
// is told apart (MissingBinary), so the caller can answer 503 instead of 500. With `cpuSeconds` the program runs
// under a CPU-time limit (lib/engines/limited-spawn.ts): a hostile file cannot keep a decoder spinning.
import { type ChildProcess, spawn } from 'node:child_process';
import { limitedCommand } from '../limited-spawn.ts';

export class MissingBinary extends Error {
  readonly binary: string;
  constructor(binary: string) {
    super(`${binary} is not installed (or not executable)`);
    this.binary = binary;
  }
}

export class ProcessFailed extends Error {
  readonly code: number | null;
  readonly stderr: string;
  constructor(binary: string, code: number | null, stderr: string) {
    super(`${binary} exited with ${code ?? 'a signal'}: ${stderr.trim().split('\n').slice(-3).join(' | ').slice(-400)}`);
    this.code = code;
    this.stderr = stderr;
  }
}

/**
 * Whether a program run under prlimit could not be started: prlimit then exits 127 (not found) or 126 (not
 * executable) and says so, where a direct spawn would have failed with ENOENT or EACCES.
 */
export const missingUnderLimit = (code: number | null, stderr: string): boolean => (code === 126 || code === 127) && /failed to execute/.test(stderr);

export class Aborted extends Error {
  constructor() {
    super('aborted by the client');
  }
}

/** Whether `binary` can be started at all (ENOENT/EACCES say no). The program is stopped right away. */
export function canSpawn(binary: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(binary, args, { stdio: 'ignore' });
    } catch {
      resolve(false);
      return;
    }
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.kill('SIGKILL');
      resolve(true);
    });
  });
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Written to the program's stdin, which is then closed. */
  input?: Buffer;
  /** Stops the program (and fails) once stdout passes this many bytes. */
  maxStdout?: number;
  /** The most CPU time the program may use (seconds); the kernel stops it past that. */
  cpuSeconds?: number;
}

/** Runs a program to its end; resolves with its stdout when it exits 0. */
export function runProcess(binary: string, args: string[], opts: RunOptions = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(new Aborted());
    const [command, commandArgs] = opts.cpuSeconds === undefined ? [binary, args] : limitedCommand(binary, args, opts.cpuSeconds);
    const child = spawn(command, commandArgs, { stdio: [opts.input ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let failure: Error | undefined;
    const stop = (why: Error) => {
      failure ??= why;
      child.kill('SIGKILL');
    };
    const onAbort = () => stop(new Aborted());
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (d: Buffer) => {
      outBytes += d.length;
      if (opts.maxStdout !== undefined && outBytes > opts.maxStdout) stop(new Error(`${binary} wrote more than ${opts.maxStdout} bytes`));
      else out.push(d);
    });
    child.stderr!.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-4000);
    });
    child.once('error', (e: NodeJS.ErrnoException) => {
      failure ??= e.code === 'ENOENT' || e.code === 'EACCES' ? new MissingBinary(binary) : e;
    });
    child.once('close', (code, signal) => {
      opts.signal?.removeEventListener('abort', onAbort);
      if (failure) reject(failure);
      else if (command !== binary && missingUnderLimit(code, err)) reject(new MissingBinary(binary));
      // Under a limit the kernel stops the program at its CPU seconds (SIGKILL at the hard limit; we kill only after `failure` is set).
      else if (command !== binary && (signal === 'SIGXCPU' || signal === 'SIGKILL'))
        reject(new ProcessFailed(binary, null, `${err}\nstopped by the system: it reached its limit of ${opts.cpuSeconds} s of CPU time`));
      else if (code !== 0) reject(new ProcessFailed(binary, code, err));
      else resolve(Buffer.concat(out));
    });
    if (opts.input) {
      // A program that exits before reading all of its input closes the pipe: that is its exit status's business.
      child.stdin!.on('error', () => {});
      child.stdin!.end(opts.input);
    }
  });
}
