// The /api/v1 table's declarations: every route that takes a body says how it is read, and a GET reads none.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiRouter } from './api.ts';

test('every POST, PATCH and DELETE route declares its body; no GET does', () => {
  const routes = apiRouter().all();
  assert.ok(routes.length > 40);
  for (const { method, path, route } of routes) {
    if (method === 'GET') assert.equal(route.body, undefined, `GET ${path} declares a body`);
    else assert.ok(route.body !== undefined, `${method} ${path} does not declare its body`);
  }
});
