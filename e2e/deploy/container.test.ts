// The container image (Containerfile) built from the Debian base and run as two instances on one PostgreSQL and one
// Redis (the host's, through --network host: a database and a Redis key prefix of this test's own, ports of its own),
// with the model a scripted engine on loopback. Skipped where Podman does not work or LAGOON_CONTAINER_TESTS=0.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { MIGRATIONS } from '../../lib/db/migrations.ts';
import { baseImage, buildImage, containersDown, containersMissing, describeContainers, podman, TEST_IMAGES, waitFor200 } from '../support/containers.ts';
import { checkChat, checkHealth, checkOneLedger, checkSharedRateLimit, type Deployment, writeDeployConfig } from '../support/deploy-checks.ts';
import { createTestDatabase } from '../support/pg.ts';
import { freePort } from '../support/processes.ts';
import { type ScriptedEngine, startScriptedEngine } from '../support/scripted-engine.ts';

const skip = containersMissing();
const IMAGE = TEST_IMAGES.lagoon.tag;
const id = randomBytes(4).toString('hex');
const names = [`lagoon-test-${id}-1`, `lagoon-test-${id}-2`];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-container-'));
let engine: ScriptedEngine | undefined;
let db: { url: string; drop(): Promise<void> } | undefined;
let env: string[] = [];
let deployment: Deployment;

// A cold build (base image, npm ci, next build) takes minutes, longer than one test may (npm test's 3 min).
const BUILD_TIMEOUT = { timeout: 25 * 60_000 };
let ended = false;

before(async () => {
  if (skip) return;
  const base = await baseImage();
  const seconds = await buildImage(IMAGE, TEST_IMAGES.lagoon.file, TEST_IMAGES.lagoon.context, base);
  // A build that outlasted the hook's timeout: `after` has run, so start nothing it would have had to stop.
  if (ended) return;
  const size = (await podman(['image', 'inspect', '--format', '{{.Size}}', IMAGE])).stdout.trim();
  console.log(`# image ${IMAGE} built in ${seconds} s (base ${base}); ${(Number(size) / 1e6).toFixed(0)} MB`);

  engine = await startScriptedEngine();
  db = await createTestDatabase();
  writeDeployConfig(dir, engine.url);
  env = [
    `DATABASE_URL=${db.url}`,
    'REDIS_URL=redis://127.0.0.1:6379',
    `LAGOON_REDIS_PREFIX=lagoon-test-${id}`,
    'LAGOON_MODELS=/config/models.json',
    'LAGOON_RATE_LIMITS=/config/limits.json',
    'HOST=127.0.0.1',
  ].flatMap((e) => ['-e', e]);
  const origins: string[] = [];
  for (const name of names) {
    const port = await freePort();
    await podman(['run', '-d', '--name', name, '--network', 'host', ...env, '-e', `PORT=${port}`, '-v', `${dir}:/config:ro`, IMAGE]);
    origins.push(`http://127.0.0.1:${port}`);
    // One after the other: the first applies the migrations (the second would wait on their lock anyway).
    await waitFor200(
      `${origins.at(-1)}/healthz`,
      120_000,
      () => describeContainers([name]),
      () => containersDown([name]),
    );
  }
  deployment = {
    origins,
    cli: async (...args) => (await podman(['exec', names[0], 'node', 'scripts/lagoon.ts', ...args])).stdout,
    reconciles: async () => (await podman(['exec', names[1], 'node', 'scripts/lagoon.ts', 'ledger', 'reconcile'], { ok: true })).code === 0,
  };
}, BUILD_TIMEOUT);

after(async () => {
  ended = true;
  if (skip) return;
  // --volumes: the anonymous volume each container got for the image's /data.
  for (const name of names) await podman(['rm', '--force', '--volumes', '--time', '5', name], { ok: true });
  await engine?.close();
  await db?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the image runs as a non-root user, its health check passes, and both instances are ready', { skip }, async () => {
  for (const name of names) {
    assert.equal((await podman(['exec', name, 'id', '-u'])).stdout.trim(), '10001');
    assert.equal((await podman(['healthcheck', 'run', name], { ok: true })).code, 0, 'the HEALTHCHECK of the image passes');
  }
  await checkHealth(deployment);
  // The Next build is in the image: the app's pages are served too.
  const page = await fetch(`${deployment.origins[0]}/sign-in`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /text\/html/);
});

test('a chat through each instance', { skip }, () => checkChat(deployment));

test('3N requests spread over both instances admit exactly N: one rate limit through Redis', { skip }, () => checkSharedRateLimit(deployment));

test('credit for N answers spent through both instances at once: exactly N succeed, one ledger', { skip }, () => checkOneLedger(deployment));

test("the migration Job's command runs in the image on a read-only root", { skip }, async () => {
  // As the Job runs it: the database named by the Secret, nothing else.
  const r = await podman([
    'run',
    '--rm',
    '--read-only',
    '--tmpfs',
    '/tmp',
    '--network',
    'host',
    '-e',
    `DATABASE_URL=${db?.url}`,
    IMAGE,
    'lagoon',
    'db',
    'migrate',
  ]);
  assert.equal(r.stdout.trim().split('\n').at(-1), String(Math.max(...MIGRATIONS.map((m) => m.version))));
});
