// The compose file (scripts/deploy/compose.yaml) brought up with podman-compose: two Lagoon instances on its own
// PostgreSQL and Redis, built from Debian's packages through the documented override (compose.debian.yaml), since no
// registry can be pulled from here. A third file, written by the test, mounts the test's model catalogue (a scripted
// engine on the host, reached at host.containers.internal). The same checks as the container test.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  baseImage,
  buildImage,
  containersDown,
  containersLabelled,
  containersMissing,
  describeContainers,
  podman,
  podmanEnv,
  sh,
  TEST_IMAGES,
  waitFor200,
} from '../support/containers.ts';
import { checkChat, checkHealth, checkOneLedger, checkSharedRateLimit, type Deployment, writeDeployConfig } from '../support/deploy-checks.ts';
import { freePort } from '../support/processes.ts';
import { type ScriptedEngine, startScriptedEngine } from '../support/scripted-engine.ts';

// iptables: netavark sets up the project's network (port forwarding, NAT) with it; without it no container starts.
const skip = containersMissing('podman-compose', 'iptables');
const project = `lagoontest${randomBytes(4).toString('hex')}`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-compose-'));
const files = ['scripts/deploy/compose.yaml', 'scripts/deploy/compose.debian.yaml', path.join(dir, 'compose.test.yaml')];
let engine: ScriptedEngine | undefined;
let composeEnv: NodeJS.ProcessEnv;
let deployment: Deployment;
let started = false;

const compose = (...args: string[]) => sh('podman-compose', ['-p', project, ...files.flatMap((f) => ['-f', f]), ...args], { env: composeEnv });
const container = (service: string) => `${project}_${service}_1`;
const SERVICES = ['lagoon-1', 'lagoon-2', 'postgres', 'redis'];
// Every container of the project, whatever compose named it: for failure messages and the clean-up.
const LABEL = `io.podman.compose.project=${project}`;
const report = async () => describeContainers(await containersLabelled(LABEL));

// A cold build (base image, npm ci, next build) takes minutes, longer than one test may (npm test's 3 min).
const BUILD_TIMEOUT = { timeout: 25 * 60_000 };
let ended = false;

before(async () => {
  if (skip) return;
  const base = await baseImage();
  // The images compose would build, built first the way the other tests build them (the host's network, its CA as a
  // build secret, one layer cache); `up` then finds them and builds nothing.
  const images = {
    LAGOON_IMAGE: TEST_IMAGES.lagoon.tag,
    LAGOON_POSTGRES_IMAGE: TEST_IMAGES.postgres.tag,
    LAGOON_REDIS_IMAGE: TEST_IMAGES.redis.tag,
  };
  let seconds = 0;
  for (const i of [TEST_IMAGES.lagoon, TEST_IMAGES.postgres, TEST_IMAGES.redis]) seconds += await buildImage(i.tag, i.file, i.context, base);
  console.log(`# images built in ${seconds.toFixed(1)} s (base ${base})`);
  // A build that outlasted the hook's timeout: `after` has run, so start nothing it would have had to stop.
  if (ended) return;

  engine = await startScriptedEngine({ host: '0.0.0.0' });
  writeDeployConfig(dir, `http://host.containers.internal:${new URL(engine.url).port}/v1`);
  const mount = { volumes: [`${dir}:/config:ro`], environment: { LAGOON_MODELS: '/config/models.json', LAGOON_RATE_LIMITS: '/config/limits.json' } };
  fs.writeFileSync(files[2], JSON.stringify({ services: { 'lagoon-1': mount, 'lagoon-2': mount } }));
  const ports = [await freePort(), await freePort()];
  composeEnv = {
    ...podmanEnv,
    ...images,
    LAGOON_BASE_IMAGE: base,
    POSTGRES_PASSWORD: randomBytes(12).toString('hex'),
    LAGOON_SECRETS_KEY: randomBytes(32).toString('hex'),
    LAGOON_PORT_1: String(ports[0]),
    LAGOON_PORT_2: String(ports[1]),
  };
  started = true;
  // podman-compose 1.0.3 carries on (exit code 0) when a container fails to start: check that each one runs.
  const up = await compose('up', '-d');
  const down = () => containersDown(SERVICES.map(container));
  const failed = await down();
  if (failed) throw new Error(`compose up: ${failed}\n${up.output.slice(-3000)}\n${await report()}`);
  const origins = ports.map((p) => `http://127.0.0.1:${p}`);
  // Lagoon may start before PostgreSQL accepts connections; it exits and its restart policy starts it again.
  const t = performance.now();
  for (const origin of origins) await waitFor200(`${origin}/readyz`, 180_000, report, down);
  console.log(`# both instances ready ${((performance.now() - t) / 1000).toFixed(0)} s after compose up`);
  deployment = {
    origins,
    cli: async (...args) => (await podman(['exec', container('lagoon-1'), 'node', 'scripts/lagoon.ts', ...args])).stdout,
    reconciles: async () => (await podman(['exec', container('lagoon-2'), 'node', 'scripts/lagoon.ts', 'ledger', 'reconcile'], { ok: true })).code === 0,
  };
}, BUILD_TIMEOUT);

after(async () => {
  ended = true;
  if (skip) return;
  if (started) {
    await compose('down', '-v', '-t', '5').catch((e) => console.error(e));
    // What `down` leaves behind, whatever state the run ended in: containers compose could not stop (and their
    // anonymous volumes), the project's volumes, and its network (podman-compose 1.0.3 never removes it).
    for (const name of await containersLabelled(LABEL)) await podman(['rm', '--force', '--volumes', '--time', '5', name], { ok: true });
    const volumes = await podman(['volume', 'ls', '--filter', `label=${LABEL}`, '--format', '{{.Name}}'], { ok: true });
    for (const v of volumes.stdout.split('\n').filter(Boolean)) await podman(['volume', 'rm', '--force', v], { ok: true });
    await podman(['network', 'rm', '--force', `${project}_default`], { ok: true });
  }
  await engine?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('compose: both instances and their PostgreSQL and Redis are healthy', { skip }, async () => {
  for (const service of SERVICES) {
    const r = await podman(['healthcheck', 'run', container(service)], { ok: true });
    assert.equal(r.code, 0, `${service} is healthy: ${r.output}`);
  }
  await checkHealth(deployment);
});

test('compose: a chat through each instance', { skip }, () => checkChat(deployment));

test('compose: one rate limit across both instances', { skip }, () => checkSharedRateLimit(deployment));

test('compose: one ledger across both instances', { skip }, () => checkOneLedger(deployment));
