// The rate limits of the configuration: the spec's defaults, a file deep-merged over them, and clear errors for bad files.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../config.ts';
import { DEFAULT_LIMITS } from './config.ts';

const loadLimitConfig = (env: Record<string, string>) => loadConfig(env).limits;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-limits-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, content);
  return p;
}

describe('loadLimitConfig', () => {
  test('without LAGOON_RATE_LIMITS: the defaults, as a copy', () => {
    const c = loadLimitConfig({});
    assert.deepEqual(c, DEFAULT_LIMITS);
    assert.notEqual(c, DEFAULT_LIMITS);
    c.text.default.L.rpm = 1;
    assert.equal(DEFAULT_LIMITS.text.default.L.rpm, 20);
    assert.equal(c.windowSeconds, 60);
    assert.equal(c.daySeconds, 86_400);
    assert.deepEqual(c.abuse, { maxFailures: 20, windowSeconds: 30, blockSeconds: 30 });
    assert.deepEqual(c.api.default, { rpm: 120 });
    assert.deepEqual(c.video, { queue: { default: { rpm: 40 }, partner: { rpm: 40 } }, retrieve: { default: { rpm: 120 }, partner: { rpm: 120 } } });
  });

  test('a file deep-merges over the defaults: untouched siblings keep their values', () => {
    const p = file(
      'override.json',
      JSON.stringify({ windowSeconds: 2, text: { partner: { L: { rpm: 90 } } }, image: { default: { rpd: 1000 } }, abuse: { maxFailures: 5 } }),
    );
    const c = loadLimitConfig({ LAGOON_RATE_LIMITS: p });
    assert.equal(c.windowSeconds, 2);
    assert.deepEqual(c.text.partner.L, { rpm: 90, tpm: 1_000_000 });
    assert.deepEqual(c.text.partner.M, DEFAULT_LIMITS.text.partner.M);
    assert.deepEqual(c.text.default, DEFAULT_LIMITS.text.default);
    assert.deepEqual(c.image.default, { rpm: 20, rpd: 1000 });
    assert.deepEqual(c.image.partner, { rpm: 60 });
    assert.deepEqual(c.abuse, { maxFailures: 5, windowSeconds: 30, blockSeconds: 30 });
  });

  test('a bad value is refused with the field it is in', () => {
    const p = file('bad-value.json', JSON.stringify({ text: { default: { M: { tpm: -5 } } } }));
    assert.throws(
      () => loadLimitConfig({ LAGOON_RATE_LIMITS: p }),
      (e: Error) => {
        assert.match(e.message, /Invalid configuration: LAGOON_RATE_LIMITS names .*bad-value\.json, which is not a valid rate-limit file/);
        assert.match(e.message, /text\.default\.M\.tpm/);
        return true;
      },
    );
  });

  test('an unknown field (a typo) is refused rather than ignored', () => {
    const p = file('typo.json', JSON.stringify({ image: { default: { rmp: 10 } } }));
    assert.throws(() => loadLimitConfig({ LAGOON_RATE_LIMITS: p }), /image\.default[\s\S]*rmp|rmp[\s\S]*image\.default/);
  });

  test('keys that are Object.prototype member names are unknown fields, never inherited values or a new prototype', () => {
    for (const [name, text] of [
      ['proto.json', '{"text":{"__proto__":{"XS":{"rpm":1,"tpm":1}}}}'],
      ['ctor.json', '{"image":{"constructor":{"rpm":3}}}'],
      ['tostring.json', '{"toString":{"rpm":3}}'],
    ]) {
      assert.throws(() => loadLimitConfig({ LAGOON_RATE_LIMITS: file(name, text) }), /__proto__|constructor|toString/, name);
    }
  });

  test('a fractional window is refused', () => {
    const p = file('window.json', JSON.stringify({ windowSeconds: 1.5 }));
    assert.throws(() => loadLimitConfig({ LAGOON_RATE_LIMITS: p }), /windowSeconds/);
  });

  test('a file that is not JSON, not an object, or missing is named in the error', () => {
    assert.throws(() => loadLimitConfig({ LAGOON_RATE_LIMITS: file('broken.json', '{ "text": ') }), /broken\.json, which is not valid JSON/);
    assert.throws(() => loadLimitConfig({ LAGOON_RATE_LIMITS: file('array.json', '[1]') }), /array\.json, which must hold a JSON object/);
    assert.throws(
      () => loadLimitConfig({ LAGOON_RATE_LIMITS: path.join(dir, 'missing.json') }),
      /LAGOON_RATE_LIMITS names .*missing\.json, which cannot be read/,
    );
  });
});
