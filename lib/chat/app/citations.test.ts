// Web search in the chat: the conversation's setting turns it on, the results arrive in the stream as citations and
// are stored with the answer; a source whose URL is not http(s) never becomes a citation.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../../../e2e/support/harness.ts';
import { userConversations } from '../../conversations/conversations.ts';
import type { GenerationEvent, SendMessageResponse } from '../../wire.ts';
import { chatRoutes } from '../app-routes.ts';
import { call, EventReader, testUser, type TestUser } from '../../../e2e/support/app-chat.ts';

const RESULTS = [
  { title: 'Lagoons of the Pacific', url: 'https://example.org/lagoons', content: 'A lagoon is a shallow body of water.', publishedDate: '2026-11-01' },
  { title: 'Coral reef atlas', url: 'https://example.org/reefs', content: 'Reefs often enclose lagoons.' },
  { title: 'Sneaky', url: 'javascript:alert(1)', content: 'Not a link.' },
];

describe('citations from web search', () => {
  let searx: http.Server;
  let h: Harness;
  let chat: ReturnType<typeof chatRoutes>;
  let alice: TestUser;
  let searches = 0;

  before(async () => {
    searx = http.createServer((_req, res) => {
      searches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query: 'q', results: RESULTS }));
    });
    await new Promise<void>((r) => searx.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(searx.address() as AddressInfo).port}`;
    h = await startHarness({ env: { LAGOON_SEARCH_PROVIDER: 'searxng', LAGOON_SEARXNG_URL: url } });
    chat = chatRoutes({ svc: h.svc, app: h.svc.config.app });
    alice = await testUser(h.svc.store);
  });
  after(async () => {
    await chat.close();
    await h.close();
    searx.close();
  });

  test('web search "on": citations stream before the answer and are stored with it', async () => {
    const ops = userConversations(h.svc.store, alice.user.id);
    const c = await ops.create({ settings: { webSearch: 'on' } });
    const before = searches;
    const res = await call(chat.sendMessage, 'POST', `/conversations/${c.id}/messages`, alice, {
      body: { parentId: null, content: 'Tell me about lagoons [[reply:Lagoons are shallow [1].]]' },
      params: { id: c.id },
    });
    assert.equal(res.status, 201);
    const { assistant } = (await res.json()) as SendMessageResponse;
    const events = await new EventReader(
      await call(chat.streamMessage, 'GET', `/messages/${assistant.id}/stream`, alice, { params: { id: assistant.id } }),
    ).rest();
    assert.equal(searches, before + 1);
    const cites = events.find((e) => e.type === 'citations') as Extract<GenerationEvent, { type: 'citations' }>;
    assert.ok(cites, JSON.stringify(events));
    assert.ok(events.indexOf(cites) < events.findIndex((e) => e.type === 'delta'), 'sources come before the answer');
    assert.deepEqual(cites.citations, [
      { url: 'https://example.org/lagoons', title: 'Lagoons of the Pacific', date: '2026-11-01' },
      { url: 'https://example.org/reefs', title: 'Coral reef atlas' },
    ]);
    const done = events.at(-1) as Extract<GenerationEvent, { type: 'done' }>;
    assert.deepEqual(done.message.citations, cites.citations);
    // Bracket citations become the caret form the chat renders as superscript links.
    assert.equal(done.message.content, 'Lagoons are shallow ^1^.');
    assert.deepEqual((await ops.message(assistant.id)).citations, cites.citations);

    // A reattach after the end gets them in the snapshot.
    const again = await new EventReader(
      await call(chat.streamMessage, 'GET', `/messages/${assistant.id}/stream`, alice, { params: { id: assistant.id } }),
    ).rest();
    assert.deepEqual((again[0] as Extract<GenerationEvent, { type: 'snapshot' }>).citations, cites.citations);
  });

  test('web search "off" (the default) does not search', async () => {
    const ops = userConversations(h.svc.store, alice.user.id);
    const c = await ops.create();
    const before = searches;
    const res = await call(chat.sendMessage, 'POST', `/conversations/${c.id}/messages`, alice, {
      body: { parentId: null, content: 'Tell me about lagoons' },
      params: { id: c.id },
    });
    const { assistant } = (await res.json()) as SendMessageResponse;
    const events = await new EventReader(
      await call(chat.streamMessage, 'GET', `/messages/${assistant.id}/stream`, alice, { params: { id: assistant.id } }),
    ).rest();
    assert.equal(searches, before);
    assert.ok(!events.some((e) => e.type === 'citations'));
  });

  test('web search forced on where no provider is configured is refused before anything is stored', async () => {
    const bare = await startHarness();
    const routes = chatRoutes({ svc: bare.svc, app: bare.svc.config.app });
    try {
      const bob = await testUser(bare.svc.store);
      const ops = userConversations(bare.svc.store, bob.user.id);
      const c = await ops.create({ settings: { webSearch: 'on' } });
      const res = await call(routes.sendMessage, 'POST', `/conversations/${c.id}/messages`, bob, {
        body: { parentId: null, content: 'hi' },
        params: { id: c.id },
      });
      assert.equal(res.status, 400);
      assert.match(((await res.json()) as { error: string }).error, /Web search is not configured/);
      assert.equal((await ops.get(c.id)).messages.length, 0);
    } finally {
      await routes.close();
      await bare.close();
    }
  });
});
