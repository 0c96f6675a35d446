import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Fleet, fleetSnapshots, registerFleet, type Replica, unregisterFleet } from './fleet.ts';

const URLS = ['http://10.0.0.1:8000/v1', 'http://10.0.0.2:8000/v1', 'http://10.0.0.3:8000/v1', 'http://10.0.0.4:8000/v1'];

function clock(start = 1_000_000) {
  const c = { t: start, now: () => c.t };
  return c;
}

test('without a key: the least outstanding replica, ties taken in turn', () => {
  const f = new Fleet(URLS, { model: 'm' });
  const [a, b, c, d] = f.replicas;
  a.outstanding = 3;
  b.outstanding = 1;
  c.outstanding = 2;
  d.outstanding = 1;
  const picks = new Set<Replica>();
  for (let i = 0; i < 8; i++) picks.add(f.pick(undefined)!);
  assert.deepEqual(
    [...picks].sort((x, y) => x.url.localeCompare(y.url)),
    [b, d],
  );
  // Every replica idle: all of them in turn.
  for (const r of f.replicas) r.outstanding = 0;
  const spread = new Set<Replica>();
  for (let i = 0; i < 4; i++) spread.add(f.pick(undefined)!);
  assert.equal(spread.size, 4);
});

test('a key stays on its replica; different keys spread over all of them', () => {
  const f = new Fleet(URLS, { model: 'm' });
  const home = f.pick('conversation-a');
  for (let i = 0; i < 20; i++) assert.equal(f.pick('conversation-a'), home);
  const used = new Set<Replica>();
  for (let i = 0; i < 200; i++) used.add(f.pick(`conversation-${i}`)!);
  assert.equal(used.size, 4);
  assert.equal(f.affinity.home, f.affinity.keyed);
});

test('bounded load: a key leaves its replica only when it would pass loadBound times the mean, and comes back', () => {
  const f = new Fleet(URLS, { model: 'm', loadBound: 1.25 });
  const home = f.pick('hot')!;
  // One hot conversation piling up: its home takes requests until the bound, then the next replica in its order.
  const placed: Replica[] = [];
  for (let i = 0; i < 40; i++) {
    const r = f.pick('hot')!;
    f.begin(r);
    placed.push(r);
  }
  const total = f.replicas.reduce((n, r) => n + r.outstanding, 0);
  const mean = total / f.replicas.length;
  for (const r of f.replicas) assert.ok(r.outstanding <= Math.ceil(1.25 * mean) + 1, `${r.label} holds ${r.outstanding}, mean ${mean}`);
  assert.ok(home.outstanding >= Math.max(...f.replicas.map((r) => r.outstanding)) - 1, 'the home replica is among the fullest');
  assert.ok(f.affinity.home < f.affinity.keyed, 'some requests were placed away from home');
  // Load gone: the key is home again.
  for (const r of placed) f.end(r, 'ok');
  assert.equal(f.pick('hot'), home);
});

test('a replica that cannot be reached is ejected at once, skipped, probed back when its ejection ends', async () => {
  const c = clock();
  let answers = false;
  const probed: string[] = [];
  const f = new Fleet(URLS, {
    model: 'm',
    now: c.now,
    ejectMs: 1_000,
    maxEjectMs: 8_000,
    probe: async (u) => {
      probed.push(u);
      return answers;
    },
  });
  const dead = f.replicas[1];
  f.begin(dead);
  f.end(dead, 'unreachable');
  assert.equal(dead.state, 'ejected');
  for (let i = 0; i < 50; i++) assert.notEqual(f.pick(undefined), dead);
  // A key whose home is the dead replica goes elsewhere, and every other key stays where it was.
  const keys = Array.from({ length: 100 }, (_, i) => `k${i}`);
  const fresh = new Fleet(URLS, { model: 'm' });
  for (const k of keys) {
    const before = fresh.replicas.indexOf(fresh.pick(k)!);
    const now = f.replicas.indexOf(f.pick(k)!);
    assert.notEqual(now, 1);
    if (before !== 1) assert.equal(now, before, `key ${k} moved although its replica is up`);
  }
  // Not probed before its time; a failed probe doubles the ejection.
  await f.tick();
  assert.equal(probed.length, 0);
  c.t += 1_000;
  await f.tick();
  assert.deepEqual(probed, [dead.url]);
  assert.equal(dead.state, 'ejected');
  assert.equal(dead.ejectMs, 2_000);
  c.t += 1_999;
  await f.tick();
  assert.equal(probed.length, 1);
  c.t += 1;
  answers = true;
  await f.tick();
  assert.equal(dead.state, 'healthy');
  assert.equal(dead.ejectMs, 0);
  assert.equal(dead.counts.ejections, 2);
});

test('an answering replica is ejected after failuresToEject failures in a row; a success between resets the count', () => {
  const f = new Fleet(URLS, { model: 'm', failuresToEject: 3 });
  const r = f.replicas[2];
  for (const o of ['failed', 'failed', 'ok', 'failed', 'failed'] as const) {
    f.begin(r);
    f.end(r, o);
  }
  assert.equal(r.state, 'healthy');
  f.begin(r);
  f.end(r, 'failed');
  assert.equal(r.state, 'ejected');
  // A bad request or a client that left says nothing about the replica.
  const s = f.replicas[3];
  for (let i = 0; i < 5; i++) {
    f.begin(s);
    f.end(s, 'neutral');
  }
  assert.equal(s.state, 'healthy');
  assert.equal(s.outstanding, 0);
});

test('every replica ejected: the one due back first, never one already tried', () => {
  const c = clock();
  const f = new Fleet(URLS.slice(0, 3), { model: 'm', now: c.now, ejectMs: 1_000 });
  const [a, b, d] = f.replicas;
  f.end(b, 'unreachable');
  c.t += 10;
  f.end(a, 'unreachable');
  f.end(d, 'unreachable');
  assert.equal(f.pick(undefined), b);
  assert.equal(f.pick('key', new Set([b])), a);
  assert.equal(f.pick(undefined, new Set([a, b, d])), undefined);
});

test('a replica whose engine reports a queue weighs heavier', async () => {
  const c = clock();
  const f = new Fleet(URLS.slice(0, 2), {
    model: 'm',
    now: c.now,
    readLoad: async (u) => (u === URLS[0] ? { waiting: 5, running: 8, kvUsage: 0.95, at: c.t } : { waiting: 0, running: 1, kvUsage: 0.2, at: c.t }),
  });
  await f.tick();
  const [busy, idle] = f.replicas;
  idle.outstanding = 3;
  assert.equal(f.load(busy), 6);
  for (let i = 0; i < 4; i++) assert.equal(f.pick(undefined), idle);
  // A stale reading is ignored.
  c.t += 60_000;
  assert.equal(f.load(busy), 0);
  assert.equal(f.pick(undefined), busy);
});

test('round-robin and random policies, for the bench', () => {
  const rr = new Fleet(URLS, { model: 'm', policy: 'round-robin', affinity: false });
  rr.replicas[0].outstanding = 100;
  assert.deepEqual(
    Array.from({ length: 4 }, () => rr.replicas.indexOf(rr.pick('k')!)),
    [0, 1, 2, 3],
  );
  let i = 0;
  const rnd = new Fleet(URLS, { model: 'm', policy: 'random', affinity: false, random: () => [0.1, 0.9][i++ % 2] });
  assert.deepEqual([rnd.pick(undefined), rnd.pick(undefined)], [rnd.replicas[0], rnd.replicas[3]]);
});

test('snapshots list registered fleets of several replicas, by host only', () => {
  const f = new Fleet(['http://user:secret@10.0.0.9:8000/v1', URLS[0]], { model: 'snap-model' });
  registerFleet(f);
  const single = new Fleet([URLS[1]], { model: 'single' });
  registerFleet(single);
  try {
    const s = fleetSnapshots();
    assert.equal(s.single, undefined);
    assert.deepEqual(
      s['snap-model'].map((r) => [r.replica, r.state]),
      [
        ['10.0.0.9:8000', 'healthy'],
        ['10.0.0.1:8000', 'healthy'],
      ],
    );
    assert.ok(!JSON.stringify(s).includes('secret'));
  } finally {
    unregisterFleet(f);
    unregisterFleet(single);
  }
  assert.equal(fleetSnapshots()['snap-model'], undefined);
});
