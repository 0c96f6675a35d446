// The one configuration: every setting is in lib/config.ts's table, documented in docs/OPERATING.md's configuration table
// (generated from it), checked at start with one clear error, and nothing else in the server reads process.env.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { configTable, loadConfig, SETTINGS } from './config.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = fs.readFileSync(path.join(root, 'docs', 'OPERATING.md'), 'utf8');

/** docs/OPERATING.md's generated configuration table (between its markers). */
function readmeTable(): string {
  const m = /<!-- config-table:start[^>]*-->\n([\s\S]*?)\n?<!-- config-table:end -->/.exec(readme);
  assert.ok(m, 'docs/OPERATING.md has no <!-- config-table:start --> … <!-- config-table:end --> block');
  return m[1].trim();
}

/** The variable names of a Markdown table's first column. */
const namesIn = (table: string): string[] => [...table.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]);

describe('the configuration table', () => {
  test('docs/OPERATING.md documents every setting, and only those', () => {
    const documented = namesIn(readmeTable());
    const settings = Object.keys(SETTINGS);
    assert.deepEqual(
      settings.filter((n) => !documented.includes(n)),
      [],
      'settings missing from docs/OPERATING.md (run: node scripts/config-table.ts --write)',
    );
    assert.deepEqual(
      documented.filter((n) => !settings.includes(n)),
      [],
      'docs/OPERATING.md rows for settings lib/config.ts does not have (run: node scripts/config-table.ts --write)',
    );
  });

  test("docs/OPERATING.md's table is the one generated from lib/config.ts", () => {
    assert.equal(readmeTable(), configTable(), 'docs/OPERATING.md is out of date: run node scripts/config-table.ts --write');
  });

  test('each setting has a one-line doc, and each default parses', () => {
    for (const [name, s] of Object.entries(SETTINGS)) {
      assert.ok(s.doc.length > 0 && !s.doc.includes('\n'), `${name}: doc must be one line`);
      if ('default' in s) assert.doesNotThrow(() => s.parse(s.default), `${name}: its default does not parse`);
    }
  });
});

describe('loadConfig', () => {
  test('the defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 3000);
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.dataDir, path.resolve('./data'));
    assert.equal(c.redisPrefix, 'lagoon');
    assert.equal(c.wire.word, 'service');
    assert.equal(c.maxBodyBytes, 35 * 1024 * 1024);
    assert.deepEqual(c.augmentPrices, { search: 10_000, scrapedUrl: 10_000, textParser: 10_000 });
    assert.equal(c.search, undefined);
    assert.deepEqual(c.fetchAllowHosts, []);
    assert.equal(c.timestampHeader, true);
    assert.deepEqual(c.holdLease, { heartbeatMs: 10_000, leaseMs: 45_000, sweepMs: 15_000 });
    assert.equal(c.dev, false);
    assert.deepEqual(c.app, {
      enabled: true,
      trustProxy: false,
      imageOrigins: [],
      remote: undefined,
      startingCredit: { usd: 0, diemDaily: 1_000_000 },
      authLimits: { failuresPerEmail: 10, failuresPerIp: 30, failureWindowSeconds: 900, signUpsPerIpPerHour: 20 },
      operatorToken: undefined,
      memoryTokens: 600,
      mail: undefined,
      oidc: undefined,
      operatorSecondFactor: false,
    });
    assert.equal(c.wallet.publicOrigin, 'http://localhost:3000');
    assert.match(c.revision, /^\d{8}\.\d{6}$/);
  });

  test('single sign-on: issuer and client id together, https unless on loopback, domains lowercased', () => {
    const c = loadConfig({
      LAGOON_OIDC_ISSUER: 'https://id.example.com/realms/x',
      LAGOON_OIDC_CLIENT_ID: 'lagoon',
      LAGOON_OIDC_EMAIL_DOMAINS: 'Example.COM, @corp.example',
    });
    assert.deepEqual(c.app.oidc, {
      issuer: 'https://id.example.com/realms/x',
      clientId: 'lagoon',
      clientSecret: undefined,
      name: 'SSO',
      allowSignUp: false,
      emailDomains: ['example.com', 'corp.example'],
    });
    assert.equal(loadConfig({ LAGOON_OIDC_ISSUER: 'http://127.0.0.1:9000', LAGOON_OIDC_CLIENT_ID: 'x' }).app.oidc?.issuer, 'http://127.0.0.1:9000');
    assert.throws(() => loadConfig({ LAGOON_OIDC_ISSUER: 'http://id.example.com', LAGOON_OIDC_CLIENT_ID: 'x' }), /LAGOON_OIDC_ISSUER must be an https URL/);
    assert.throws(() => loadConfig({ LAGOON_OIDC_ISSUER: 'https://id.example.com' }), /LAGOON_OIDC_CLIENT_ID is not/);
    assert.throws(() => loadConfig({ LAGOON_OIDC_CLIENT_ID: 'x' }), /LAGOON_OIDC_ISSUER is not/);
  });

  test('values are parsed and passed on, an empty value counting as unset', () => {
    const c = loadConfig({
      PORT: '8080',
      LAGOON_NO_APP: '1',
      LAGOON_TRUST_PROXY: '1',
      LAGOON_IMAGE_ORIGINS: 'https://cdn.example/photos/, http://img.example:8080',
      LAGOON_TIMESTAMP_HEADER: '0',
      LAGOON_NEW_USER_USD: '2.5',
      LAGOON_SEARCH_PROVIDER: 'Brave',
      LAGOON_BRAVE_API_KEY: ' key ',
      LAGOON_SEARCH_RESULTS: '3',
      INFERENCE_BASE_URL: 'https://api.example/v1//',
      INFERENCE_API_KEY: 'k',
      LAGOON_WIRE_NAME: 'venice',
      LAGOON_HOST_NAME: '',
      HOSTNAME: 'box-1',
    });
    assert.equal(c.port, 8080);
    assert.equal(c.app.enabled, false);
    assert.equal(c.app.trustProxy, true);
    assert.deepEqual(c.app.imageOrigins, ['https://cdn.example', 'http://img.example:8080']);
    assert.equal(c.timestampHeader, false);
    assert.equal(c.app.startingCredit.usd, 2_500_000);
    assert.deepEqual(c.search, { provider: 'brave', apiKey: 'key', baseUrl: undefined, timeoutMs: 5000, maxResults: 3 });
    assert.equal(c.app.remote?.baseUrl, 'https://api.example/v1');
    assert.equal(c.app.remote?.wire.word, 'venice', 'INFERENCE_WIRE_NAME defaults to LAGOON_WIRE_NAME');
    assert.equal(c.hostName, 'box-1');
    assert.equal(c.wallet.publicOrigin, 'http://localhost:8080');
  });

  test('the catalogue sees the environment captured at start, and the resolved data directory', () => {
    const env: Record<string, string> = { UPSTREAM_KEY: 'sk-1', LAGOON_DATA_DIR: 'some/dir' };
    const c = loadConfig(env);
    env.UPSTREAM_KEY = 'changed';
    assert.equal(c.catalogueVar('UPSTREAM_KEY'), 'sk-1');
    assert.equal(c.catalogueVar('LAGOON_DATA_DIR'), path.resolve('some/dir'));
    assert.equal(c.catalogueVar('UNSET_VARIABLE'), undefined);
  });

  test('an invalid value stops the start with a message naming the variable', () => {
    assert.throws(() => loadConfig({ PORT: 'eighty' }), { message: 'Invalid configuration: PORT must be a whole number, got "eighty"' });
    assert.throws(() => loadConfig({ LAGOON_NO_APP: 'maybe' }), { message: 'Invalid configuration: LAGOON_NO_APP must be 1 or 0, got "maybe"' });
    assert.throws(() => loadConfig({ LAGOON_IMAGE_ORIGINS: 'https://ok.example, data:x' }), /LAGOON_IMAGE_ORIGINS must be an http or https URL, got "data:x"/);
    assert.throws(() => loadConfig({ LAGOON_IMAGE_ORIGINS: "https://a;script-src 'unsafe-inline'.example" }), /LAGOON_IMAGE_ORIGINS /);
    assert.throws(
      () => loadConfig({ LAGOON_SEARCH_PROVIDER: 'bing' }),
      /Invalid configuration: LAGOON_SEARCH_PROVIDER must be "searxng" or "brave", got "bing"/,
    );
    assert.throws(
      () => loadConfig({ INFERENCE_BASE_URL: 'https://api.example/v1' }),
      /Invalid configuration: INFERENCE_BASE_URL is set but INFERENCE_API_KEY is not/,
    );
    assert.throws(
      () => loadConfig({ LAGOON_HOLD_LEASE_MS: '15000' }),
      /Invalid configuration: LAGOON_HOLD_LEASE_MS must be at least twice LAGOON_HEARTBEAT_MS \(20000\), got 15000/,
    );
    assert.throws(
      () => loadConfig({ LAGOON_X402_BASE_PAY_TO: '0x2670B922ef37C7Df47158725C0CC407b5382293F' }),
      /Invalid configuration: LAGOON_X402_BASE_PAY_TO needs LAGOON_X402_FACILITATOR_URL/,
    );
  });

  test('every invalid value is reported at once', () => {
    assert.throws(
      () => loadConfig({ PORT: '-1', LAGOON_NEW_USER_DIEM: 'lots', LAGOON_WIRE_NAME: 'Not A Word', LAGOON_PUBLIC_URL: 'lagoon.example' }),
      (e: Error) => {
        assert.match(e.message, /^Invalid configuration:\n/);
        for (const name of ['PORT', 'LAGOON_NEW_USER_DIEM', 'LAGOON_WIRE_NAME', 'LAGOON_PUBLIC_URL']) assert.match(e.message, new RegExp(`\\n  - ${name} `));
        return true;
      },
    );
  });
});

/** Source files under `dir` (relative to the root), skipping tests and test helpers. */
function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const p = path.posix.join(rel, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'testing') walk(p);
      } else if (/\.(ts|tsx|js|mjs)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) {
        out.push(p);
      }
    }
  };
  walk(dir);
  return out;
}

// Being rewritten to take its settings from Config (svc.config.app); remove once it does.

describe('one reader of the environment', () => {
  test('no server file but lib/config.ts reads process.env', () => {
    const files = [...sources('lib'), ...sources('app'), ...sources('components'), 'scripts/lagoon.ts', 'scripts/serve.ts'];
    const readers = files.filter((f) => f !== 'lib/config.ts' && fs.readFileSync(path.join(root, f), 'utf8').includes('process.env'));
    assert.deepEqual(readers, [], 'read the setting in lib/config.ts and pass it down');
  });

  test('lib/config.ts imports nothing that imports it back', () => {
    const config = path.join(root, 'lib/config.ts');
    const seen = new Set<string>();
    const visit = (file: string) => {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^'"]*from '(\.{1,2}\/[^']+)'/gm)) {
        const dep = path.resolve(path.dirname(file), m[1]);
        assert.notEqual(dep, config, `${path.relative(root, file)} imports lib/config.ts, which imports it`);
        if (!seen.has(dep) && fs.existsSync(dep)) {
          seen.add(dep);
          visit(dep);
        }
      }
    };
    visit(config);
    assert.ok(seen.has(path.join(root, 'lib/wallet/config.ts')) && seen.has(path.join(root, 'lib/limits/config.ts')));
  });
});
