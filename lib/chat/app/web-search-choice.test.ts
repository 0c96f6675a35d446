// Without a search provider the app is told so (GET /api/app/models: webSearch.available false, with the reason),
// and web search "on" is refused when a chat is created or changed, before anything is stored: no empty chat is
// left behind. "auto" and "off" are accepted (auto finds nothing to search with and answers without sources).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppModelsResponse } from '../../wire.ts';
import { BACKENDS, type Dash, type DashUser, startDash } from '../../../e2e/support/app-dash.ts';

for (const backend of BACKENDS)
  describe(`web search without a provider (${backend})`, () => {
    let d: Dash;
    let ann: DashUser;
    before(async () => {
      d = await startDash(backend);
      ann = await d.newUser(5);
    });
    after(() => d?.close());

    test('the models response says web search is unavailable, and why', async () => {
      assert.equal(d.h.svc.searchAvailable, false);
      const r = await d.call(d.routes.models, '/models', { browser: ann.browser });
      const body = r.json as AppModelsResponse;
      assert.equal(body.webSearch.available, false);
      assert.match(body.webSearch.reason ?? '', /LAGOON_SEARCH_PROVIDER/);
      assert.ok(body.models.every((m) => !m.capabilities.webSearch));
    });

    test('"on" is refused at create and update; nothing is stored', async () => {
      const list = async () => (await d.call(d.routes.listConversations, '/conversations', { browser: ann.browser })).json.items as unknown[];
      const before = (await list()).length;
      const r = await d.call(d.routes.createConversation, '/conversations', { method: 'POST', body: { settings: { webSearch: 'on' } }, browser: ann.browser });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.param, 'settings.webSearch');
      assert.equal((await list()).length, before, 'no chat was created');

      const ok = await d.call(d.routes.createConversation, '/conversations', {
        method: 'POST',
        body: { settings: { webSearch: 'auto' } },
        browser: ann.browser,
      });
      assert.equal(ok.status, 201, ok.text);
      const id = ok.json.id as string;
      const up = await d.call(
        d.routes.updateConversation,
        `/conversations/${id}`,
        { method: 'PATCH', body: { settings: { webSearch: 'on' } }, browser: ann.browser },
        { id },
      );
      assert.equal(up.status, 400, up.text);
      const got = await d.call(d.routes.getConversation, `/conversations/${id}`, { browser: ann.browser }, { id });
      assert.equal(got.json.settings.webSearch, 'auto', 'unchanged');
    });
  });
