import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileKeyVars, keyVarAllowed, refuseKeyVar } from './key-vars.ts';

test('keyVarAllowed: the fixed prefix, or a variable the catalogue file already gives a model as its key', () => {
  const catalogue = { file: { models: [{ engine: { kind: 'openai', apiKeyEnv: 'VLLM_KEY' } }, { engine: { kind: 'demo-image' } }] } } as never;
  const fileVars = fileKeyVars(catalogue);
  assert.deepEqual([...fileVars], ['VLLM_KEY']);
  assert.equal(keyVarAllowed('LAGOON_UPSTREAM_KEY_OPENAI', fileVars), true);
  assert.equal(keyVarAllowed('VLLM_KEY', fileVars), true);
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'LAGOON_RPC_UPSTREAMS', 'LAGOON_SECRETS_KEY', 'LAGOON_UPSTREAM_KEY_', 'HOME'])
    assert.equal(keyVarAllowed(name, fileVars), false, name);
  assert.doesNotThrow(() => refuseKeyVar(undefined, catalogue));
  assert.throws(() => refuseKeyVar('DATABASE_URL', catalogue), { code: 'INVALID_REQUEST' });
});
