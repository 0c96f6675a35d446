// Podman for the container tests: the images built the way docs/OPERATING.md builds them (the Debian base made by
// scripts/deploy/base-image.sh, builds on the host's network), and containers run with the project's Podman settings
// (scripts/deploy/containers.conf, through CONTAINERS_CONF, so nothing system-wide changes).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
const CA = '/etc/ssl/certs/ca-certificates.crt';

/** The environment podman and podman-compose run with. */
export const podmanEnv: NodeJS.ProcessEnv = {
  ...process.env,
  CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? path.join(ROOT, 'scripts/deploy/containers.conf'),
};

// /usr/sbin too: iptables lives there, outside a non-root user's PATH.
const have = (cmd: string) => spawnSync('sh', ['-c', `PATH="$PATH:/usr/sbin:/sbin" command -v ${cmd}`]).status === 0;

/**
 * Why the container tests do not run here (a skip reason), or false. They run wherever Podman works and mmdebstrap
 * is installed (scripts/setup.sh installs them, CI included); `LAGOON_CONTAINER_TESTS=0` leaves them out. A cold
 * image build takes minutes, so `npm test` starts it in the background when a run includes them
 * (e2e/support/image-prebuild.ts), and the tests find it built.
 */
export function containersMissing(...tools: string[]): string | false {
  if (process.env.LAGOON_CONTAINER_TESTS === '0') return 'LAGOON_CONTAINER_TESTS=0 leaves the image build and run tests out';
  const missing = ['podman', ...(process.env.LAGOON_TEST_BASE_IMAGE ? [] : ['mmdebstrap']), ...tools].filter((t) => !have(t));
  if (missing.length) return `${missing.join(', ')} not installed (scripts/setup.sh installs them)`;
  podmanWorks ??= podmanProblem();
  return podmanWorks;
}
let podmanWorks: string | false | undefined;

/** Podman installed but unusable (no storage, no runtime, not permitted): its own words, or false. */
function podmanProblem(): string | false {
  const r = spawnSync('podman', ['info', '--format', '{{.Host.OCIRuntime.Name}}'], { env: podmanEnv, encoding: 'utf8', timeout: 60_000 });
  return r.status === 0 ? false : `podman does not work here: ${(r.stderr || r.error?.message || '').trim().split('\n').at(-1)}`;
}

/** The images the deploy tests run: Lagoon's (both tests) and compose's PostgreSQL and Redis. */
export const TEST_IMAGES = {
  lagoon: { tag: 'localhost/lagoon:test', file: 'Containerfile', context: '.' },
  postgres: { tag: 'localhost/lagoon-postgres:15', file: 'scripts/deploy/images/postgres.Containerfile', context: 'scripts/deploy/images' },
  redis: { tag: 'localhost/lagoon-redis:7', file: 'scripts/deploy/images/redis.Containerfile', context: 'scripts/deploy/images' },
} as const;

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr together, in the order they came (`podman logs` gives a container's stderr on its stderr). */
  output: string;
}

/** Runs a command to its end without blocking the event loop; throws with its output when it fails, unless `ok`. */
export function sh(cmd: string, args: string[], opts: { ok?: boolean; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { env: opts.env ?? podmanEnv, cwd: opts.cwd ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let output = '';
    p.stdout.on('data', (b) => {
      stdout += b;
      output += b;
    });
    p.stderr.on('data', (b) => {
      stderr += b;
      output += b;
    });
    p.on('error', reject);
    p.on('close', (code) => {
      const r = { code: code ?? 1, stdout, stderr, output };
      if (r.code !== 0 && !opts.ok) reject(new Error(`${cmd} ${args.join(' ')} exited ${r.code}:\n${output.slice(-4000)}`));
      else resolve(r);
    });
  });
}

export const podman = (args: string[], opts: { ok?: boolean } = {}) => sh('podman', args, opts);
const lastLine = (s: string) => s.trim().split('\n').at(-1) ?? '';

/** The Debian base image: LAGOON_TEST_BASE_IMAGE, or the one base-image.sh makes (once per package list). */
export async function baseImage(): Promise<string> {
  if (process.env.LAGOON_TEST_BASE_IMAGE) return process.env.LAGOON_TEST_BASE_IMAGE;
  return lastLine((await sh('bash', ['scripts/deploy/base-image.sh'])).stdout);
}

/**
 * Builds `containerfile` as `tag` FROM `base`, on the host's network and with the host's CA bundle as the build's
 * `build_ca` secret (the npm registry may sit behind a TLS-inspecting proxy). Podman's layer cache makes a rebuild
 * of unchanged inputs cheap, but not free: it hashes what each stage copies (Lagoon's node_modules), 40 s on a quiet
 * 2-core VM and 4 minutes on a loaded one. So within one `npm test` run (LAGOON_IMAGES_BUILT, a file scripts/test.ts
 * names) each tag is built once: by the background prebuild, and the tests then skip it. Returns the seconds it took.
 */
export async function buildImage(tag: string, containerfile: string, context: string, base: string): Promise<number> {
  const t = performance.now();
  const secret = fs.existsSync(CA) ? ['--secret', `id=build_ca,src=${CA}`] : [];
  const build = ['build', '--format', 'docker', '--network', 'host', ...buildUlimit(), ...secret, '--build-arg', `BASE_IMAGE=${base}`];
  build.push('-t', tag, '-f', containerfile, context);
  // One build at a time (flock): the test files and the prebuild build the same layers. Under the lock, a tag this
  // run built already is not built again.
  const built = process.env.LAGOON_IMAGES_BUILT ?? '';
  const once =
    'tag=$1 built=$2; shift 2; [ -n "$built" ] && grep -qxF "$tag" "$built" 2>/dev/null && exit 0; "$@" && { [ -z "$built" ] || echo "$tag" >>"$built"; }';
  await sh('flock', [path.join(os.tmpdir(), 'lagoon-image-build.lock'), 'sh', '-c', once, 'sh', tag, built, 'podman', ...build]);
  return Math.round((performance.now() - t) / 100) / 10;
}

/**
 * With no default ulimits (scripts/deploy/containers.conf), a build's RUN steps get 1,024 open files, and `npm ci`
 * over Lagoon's tree runs out of them (EMFILE in npm's cache). The host's hard limit is the most Podman may set here
 * (more is refused without CAP_SYS_RESOURCE).
 */
function buildUlimit(): string[] {
  const hard = spawnSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).stdout.trim();
  const n = hard === 'unlimited' ? 1_048_576 : Number(hard);
  return Number.isInteger(n) && n > 1024 ? ['--ulimit', `nofile=${n}:${n}`] : [];
}

/** The containers whose label `label` (key=value) is set, e.g. a compose project's: their names. */
export async function containersLabelled(label: string): Promise<string[]> {
  const r = await podman(['ps', '--all', '--filter', `label=${label}`, '--format', '{{.Names}}'], { ok: true });
  return r.stdout.split('\n').filter(Boolean);
}

/**
 * What a failure message shows of containers: each one's state (status, exit code, restarts, the runtime's error,
 * e.g. a network that could not be set up) and its last log lines, stdout and stderr both (a server's startup error
 * is on stderr).
 */
export async function describeContainers(names: string[]): Promise<string> {
  const parts: string[] = [];
  for (const name of names) {
    const state = await podman(['inspect', '--format', STATE, name], { ok: true });
    const logs = await podman(['logs', '--tail', '40', name], { ok: true });
    parts.push(`--- ${name}: ${state.output.trim()}\n${logs.output.trim() || '(no log output)'}`);
  }
  return parts.join('\n') || '(no containers)';
}
const STATE = '{{.State.Status}}, exit code {{.State.ExitCode}}, {{.RestartCount}} restarts{{if .State.Error}}, error: {{.State.Error}}{{end}}';

/**
 * Why one of `names` will not come up by itself, or false: it does not start (the runtime's error, e.g. netavark
 * failing without iptables), or it stopped and its restart policy will not start it again.
 */
export async function containersDown(names: string[]): Promise<string | false> {
  for (const name of names) {
    const r = await podman(['inspect', '--format', '{{.State.Status}}|{{.HostConfig.RestartPolicy.Name}}|{{.State.Error}}', name], { ok: true });
    if (r.code !== 0) return `${name}: ${r.output.trim()}`;
    const [status, policy, error] = r.stdout.trim().split('|');
    // Never started (`podman run -d` has returned): podman 4.3 keeps no error for it, so start it again for one.
    if (status === 'created') {
      const start = await podman(['start', name], { ok: true });
      const why = error || start.output.trim();
      // netavark runs iptables (found through PATH) for every network: its "No such file" is a missing iptables.
      const hint = /netavark: No such file/.test(why) ? ' (netavark needs iptables: scripts/setup.sh installs it)' : '';
      if (start.code !== 0) return `${name} does not start${hint}: ${why}`;
    }
    if (['exited', 'stopped', 'dead'].includes(status) && ['', 'no'].includes(policy)) return `${name} stopped (${status})`;
  }
  return false;
}

/**
 * Polls `url` until it answers 200, or throws after `ms` with `why()` for the message; sooner when `down()` (checked
 * every few seconds) says it never will.
 */
export async function waitFor200(url: string, ms: number, why: () => Promise<string>, down?: () => Promise<string | false>): Promise<void> {
  const deadline = Date.now() + ms;
  let nextCheck = Date.now() + 3000;
  while (Date.now() < deadline) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    if (down && Date.now() >= nextCheck) {
      const reason = await down();
      if (reason) throw new Error(`${url} will not answer: ${reason}\n${await why()}`);
      nextCheck = Date.now() + 3000;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} did not answer 200 in ${ms} ms:\n${await why()}`);
}
