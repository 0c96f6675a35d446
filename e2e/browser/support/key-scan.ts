// The key-material check that ends every browser test file: nothing the browser received during the file's run
// (every recorded response: headers and text bodies, SSE streams included) and no file of the built client bundles
// contains an API key, a key's SHA-256 hash, or the server's upstream credential. It also checks that no page of the
// file's run reported a Content-Security-Policy violation (the pages run under the app's policy).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { clientBundleFiles, findSecrets } from '../../support/browser.ts';
import { nextDistDir } from '../../support/harness.ts';
import type { AppRun } from './app.ts';

/** Every key hash in the database, plus the secrets the run created (personal keys, harness keys, upstream key). */
export async function keyMaterial(run: AppRun, extra: string[] = []): Promise<string[]> {
  const rows = await run.h.svc.store.all<{ key_hash: string }>('SELECT key_hash FROM api_keys');
  const hashes = rows.map((r) => r.key_hash);
  assert.ok(hashes.length > 0, 'the database holds key hashes to look for');
  return [...new Set([...hashes, ...run.secrets, ...extra])];
}

export interface ScanResult {
  responses: number;
  bundleFiles: number;
  secrets: number;
}

/** Asserts no secret appears in any recorded response or client bundle file; returns what was scanned. */
export async function assertNoKeyMaterial(run: AppRun, extra: string[] = []): Promise<ScanResult> {
  assertNoCspViolations(run);
  const secrets = await keyMaterial(run, extra);
  for (const c of run.contexts) await c.settle();
  const received = run.contexts.flatMap((c) => c.received);
  assert.ok(received.length > 0, 'the run recorded responses to scan');
  const hits = findSecrets(received, secrets);
  assert.deepEqual(hits, [], `key material reached the browser: ${hits.join('; ')}`);

  const files = clientBundleFiles(nextDistDir());
  assert.ok(files.length > 0, 'the build has client bundle files to scan');
  const bundleHits: string[] = [];
  for (const f of files) {
    const text = fs.readFileSync(f, 'latin1');
    for (const s of secrets) if (text.includes(s)) bundleHits.push(`${s.slice(0, 12)}… in ${f}`);
    if (/lgn_(inf|adm)_[A-Za-z0-9]{40}/.test(text)) bundleHits.push(`an API key in ${f}`);
  }
  assert.deepEqual(bundleHits, [], `key material in the client bundles: ${bundleHits.join('; ')}`);
  return { responses: received.length, bundleFiles: files.length, secrets: secrets.length };
}

/** Asserts that nothing any page of the run did was blocked by the app's Content-Security-Policy. */
export function assertNoCspViolations(run: AppRun): void {
  const violations = run.contexts.flatMap((c) => c.cspViolations);
  assert.deepEqual(violations, [], `Content-Security-Policy violations: ${violations.join('; ')}`);
}
