// Real server processes (scripts/serve.ts) for the tests that need several instances sharing one database, and the
// admin CLI (scripts/lagoon.ts) that sets up their accounts.
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';

const run = promisify(execFile);
const lastLine = (s: string) => s.trim().split('\n').at(-1)!;

/** Runs the admin CLI (scripts/lagoon.ts) with exactly `env`; the last line it printed (the id or key it made). */
export async function lagoonCli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<string> {
  return lastLine((await run(process.execPath, ['scripts/lagoon.ts', ...args], { env })).stdout);
}

/** lagoonCli, waiting for it synchronously. */
export function lagoonCliSync(env: NodeJS.ProcessEnv, ...args: string[]): string {
  return lastLine(execFileSync(process.execPath, ['scripts/lagoon.ts', ...args], { env, encoding: 'utf8' }));
}

export interface ServerProcess {
  proc: ChildProcess;
  /** http://127.0.0.1:PORT/api/v1 */
  base: string;
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** Starts `n` servers one after the other (the first applies the migrations, the next find them done). */
export async function startServers(n: number, env: Record<string, string>): Promise<ServerProcess[]> {
  const servers: ServerProcess[] = [];
  for (let i = 0; i < n; i++) {
    const port = await freePort();
    const proc = spawn(process.execPath, ['scripts/serve.ts'], {
      env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      proc.stdout!.on('data', (b: Buffer) => /listening/.test(String(b)) && resolve());
      proc.once('exit', (c) => reject(new Error(`server exited ${c}`)));
    });
    servers.push({ proc, base: `http://127.0.0.1:${port}/api/v1` });
  }
  return servers;
}

/** SIGTERM to each, and waits until all have exited. */
export async function stopServers(servers: ServerProcess[]): Promise<void> {
  for (const s of servers) s.proc.kill('SIGTERM');
  await Promise.all(servers.map((s) => new Promise((r) => (s.proc.exitCode !== null ? r(null) : s.proc.once('exit', r)))));
}

export interface LoggedServer {
  proc: ChildProcess;
  /** http://127.0.0.1:PORT (the server picks the port it prints). */
  origin: string;
  /** Everything it printed so far, stdout and stderr. */
  log: () => string;
  exited: Promise<number | null>;
}

/** Starts one server with exactly `env` and waits until it listens, keeping its output (for tests that kill it). */
export async function startLoggedServer(env: NodeJS.ProcessEnv): Promise<LoggedServer> {
  let log = '';
  const proc = spawn(process.execPath, ['scripts/serve.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (b) => (log += b));
  proc.stderr!.on('data', (b) => (log += b));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  let origin = '';
  // A loaded machine can take tens of seconds to start a server: wait up to 90 s, and stop early if it exits. One that
  // did not start is killed here, since the caller never gets it to stop (it would keep the test file alive).
  for (let i = 0; i < 1800 && !origin && proc.exitCode === null; i++) {
    const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(log);
    if (m) origin = m[1];
    else await new Promise((r) => setTimeout(r, 50));
  }
  if (!origin) {
    proc.kill('SIGKILL');
    throw new Error(`the server did not start:\n${log}`);
  }
  return { proc, origin, log: () => log, exited };
}
