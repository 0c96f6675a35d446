// LAGOON_WIRE_NAME=venice serves the public API's exact wire names, for drop-in client compatibility.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Harness, post, startHarness } from '../support/harness.ts';

let h: Harness;
let key: string;
before(async () => {
  h = await startHarness({ env: { LAGOON_WIRE_NAME: 'venice' }, systemPrompts: ['OPERATOR'] });
  ({ key } = await h.newAccount());
});
after(() => h.close());

test('venice_parameters in, venice_parameters and x-venice-* headers out', async () => {
  const r = await post(h, '/chat/completions', key, {
    model: 'scripted-model',
    messages: [{ role: 'user', content: '[[echo_request]]' }],
    venice_parameters: { include_venice_system_prompt: false, character_slug: 'captain-reef' },
  });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.equal(r.json.venice_parameters.include_venice_system_prompt, false);
  assert.equal(r.json.venice_parameters.character_slug, 'captain-reef');
  assert.equal('service_parameters' in r.json, false);
  assert.match(JSON.parse(r.json.choices[0].message.content)[0].content, /^You are Captain Reef/);
  assert.match(r.headers.get('x-venice-version')!, /^\d{8}\.\d{6}$/);
  assert.equal(r.headers.get('x-venice-model-id'), 'scripted-model');
  assert.equal(r.headers.get('x-service-version'), null);
});

test('the suffix key follows the word; service_parameters is an unknown field under it', async () => {
  const r = await post(h, '/chat/completions', key, {
    model: 'scripted-model:include_venice_system_prompt=false',
    messages: [{ role: 'user', content: '[[echo_request]]' }],
  });
  assert.equal(JSON.parse(r.json.choices[0].message.content)[0].role, 'user');
  const bad = await post(h, '/chat/completions', key, { model: 'scripted-model', messages: [{ role: 'user', content: 'x' }], service_parameters: {} });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.json.issues[0].keys, ['service_parameters']);
});
