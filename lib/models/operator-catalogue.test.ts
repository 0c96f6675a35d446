// Stored upstream keys at rest: a key stored in the clear before sealing existed is sealed on the first read that has
// a secrets key, and still reaches its engine; without a secrets key nothing can be stored, and a sealed key is not
// guessed at (the model goes without it, the others keep serving).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openStore } from '../db/open.ts';
import { secretBox } from '../db/secret-box.ts';
import type { Store } from '../db/store.ts';
import type { Catalogue } from './catalogue.ts';
import { OperatorCatalogue, storedKeyName } from './operator-catalogue.ts';
import type { ModelEntry } from './schema.ts';

let dir: string;
let store: Store;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-opcat-'));
  store = await openStore({ dataDir: dir });
});
after(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const catalogue = (): Catalogue => ({ file: { models: [] } as unknown as Catalogue['file'], models: [], byId: new Map(), systemPrompts: [], createdAt: 0 });
const entry = (id: string): ModelEntry =>
  ({
    id,
    name: id,
    type: 'text',
    tier: 'M',
    pricing: { input_usd: 1, output_usd: 2, input_diem: 1, output_diem: 2 },
    context_length: 8192,
    capabilities: { vision: false, reasoning: false, function_calling: false },
    engine: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: storedKeyName(id) },
  }) as unknown as ModelEntry;

test('a key stored in the clear is sealed on the first read with a secrets key, and still used', async () => {
  await store.run('INSERT INTO operator_catalogue (model_id, entry, api_key, disabled, pricing, updated_at) VALUES ($1, $2, $3, $4, NULL, $5)', [
    'legacy',
    JSON.stringify(entry('legacy')),
    'sk-legacy-plain',
    false,
    1,
  ]);
  const box = secretBox(crypto.randomBytes(32));
  const ops = new OperatorCatalogue(store, catalogue(), undefined, box);
  await ops.refresh();
  assert.equal(ops.storedKey(storedKeyName('legacy')), 'sk-legacy-plain');
  const row = await store.get<{ api_key: string }>('SELECT api_key FROM operator_catalogue WHERE model_id = $1', ['legacy']);
  assert.ok(row?.api_key.startsWith('sealed:v1:'), row?.api_key);
  assert.equal(box.open(row!.api_key, storedKeyName('legacy')), 'sk-legacy-plain');
  // Read again (another instance, or the next refresh): the sealed value opens to the same key.
  const again = new OperatorCatalogue(store, catalogue(), undefined, box);
  await again.refresh();
  assert.equal(again.storedKey(storedKeyName('legacy')), 'sk-legacy-plain');

  await ops.add(entry('fresh'), 'sk-fresh', 2);
  const fresh = await store.get<{ api_key: string }>('SELECT api_key FROM operator_catalogue WHERE model_id = $1', ['fresh']);
  assert.ok(fresh?.api_key.startsWith('sealed:v1:') && !fresh.api_key.includes('sk-fresh'));
  assert.equal(ops.storedKey(storedKeyName('fresh')), 'sk-fresh');
});

test('without a secrets key no key is stored, and a sealed one is left unopened', async () => {
  const ops = new OperatorCatalogue(store, catalogue());
  assert.equal(ops.canStoreKeys(), false);
  await assert.rejects(ops.add(entry('nokey'), 'sk-nope'), /no secrets key/);
  assert.equal(await store.get('SELECT model_id FROM operator_catalogue WHERE model_id = $1', ['nokey']), undefined);
  await ops.add(entry('named'), null);
  await ops.refresh();
  assert.equal(ops.storedKey(storedKeyName('legacy')), undefined, 'sealed, and no key to open it');
  assert.ok(
    ops.changes().some((r) => r.modelId === 'named'),
    'the other changes still apply',
  );
});
