// The app's conversation routes on a real service: create (model and character checks), read with every branch,
// update, delete, pagination, export and search, and that one user can never reach another's conversations.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../../e2e/support/harness.ts';
import { userConversations } from './conversations.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { authRoutes } from '../account/app-auth.ts';
import { conversationRoutes } from './app-routes.ts';
import { type Browser, caller, cookieFrom } from '../../e2e/support/app-requests.ts';

let h: Harness;
let call: ReturnType<typeof caller>;
let auth: ReturnType<typeof authRoutes>;
let conv: ReturnType<typeof conversationRoutes>;
let n = 0;

interface User extends Browser {
  userId: string;
}

async function newUser(): Promise<User> {
  const r = await call(auth.signUp, '/auth/sign-up', {
    method: 'POST',
    body: { email: `c${++n}@example.com`, password: 'correct horse battery' },
    browser: { ip: `192.0.2.${n}` },
  });
  assert.equal(r.status, 201, r.text);
  return { ip: `192.0.2.${n}`, cookie: cookieFrom(r), csrf: r.json.csrfToken, userId: r.json.user.id };
}

const create = (u: Browser, body: Record<string, unknown> = {}) => call(conv.createConversation, '/conversations', { method: 'POST', body, browser: u });
const get = (u: Browser, id: string) => call(conv.getConversation, `/conversations/${id}`, { browser: u }, { id });
const patch = (u: Browser, id: string, body: unknown) => call(conv.updateConversation, `/conversations/${id}`, { method: 'PATCH', body, browser: u }, { id });
const del = (u: Browser, id: string) => call(conv.deleteConversation, `/conversations/${id}`, { method: 'DELETE', browser: u }, { id });
const exp = (u: Browser, id: string, query: string) => call(conv.exportConversation, `/conversations/${id}/export?${query}`, { browser: u }, { id });
const search = (u: Browser, q: string) => call(conv.search, `/search?q=${encodeURIComponent(q)}`, { browser: u });
const list = (u: Browser, query = '') => call(conv.listConversations, `/conversations${query}`, { browser: u });

before(async () => {
  h = await startHarness();
  call = caller(h.svc.store);
  const deps: AppDeps = { svc: h.svc, app: h.svc.config.app };
  auth = authRoutes(deps);
  conv = conversationRoutes(deps);
});
after(() => h.close());

describe('create', () => {
  test('a new chat gets the default model, and answers 201 with the conversation', async () => {
    const u = await newUser();
    const r = await create(u);
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(Object.keys(r.json).sort(), [
      'archived',
      'characterSlug',
      'createdAt',
      'folderId',
      'id',
      'modelId',
      'pinned',
      'settings',
      'title',
      'updatedAt',
    ]);
    assert.equal(r.json.modelId, 'scripted-model');
    assert.equal(r.json.characterSlug, null);
    assert.equal(r.json.title, 'New chat');
    assert.deepEqual(r.json.settings, {});
    assert.equal(r.headers.get('cache-control'), 'no-store');
  });

  test('a model by id or alias (stored as its id), a character, and settings', async () => {
    const u = await newUser();
    const r = await create(u, { modelId: 'gpt-4o', characterSlug: 'captain-reef', settings: { temperature: 0.3, webSearch: 'auto' } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.modelId, 'scripted-model');
    assert.equal(r.json.characterSlug, 'captain-reef');
    assert.deepEqual(r.json.settings, { temperature: 0.3, webSearch: 'auto' });
    const vision = await create(u, { modelId: 'vision-model' });
    assert.equal(vision.json.modelId, 'vision-model');
  });

  test('an unknown character or model is 404 with its own code; bad settings and unknown fields are 400; nothing is stored', async () => {
    const u = await newUser();
    const noChar = await create(u, { characterSlug: 'no-such-character' });
    assert.equal(noChar.status, 404);
    assert.equal(noChar.json.code, 'CHARACTER_NOT_FOUND');
    const noModel = await create(u, { modelId: 'no-such-model' });
    assert.equal(noModel.status, 404);
    assert.equal(noModel.json.code, 'MODEL_NOT_FOUND');
    const badSettings = await create(u, { settings: { temperature: 7 } });
    assert.equal(badSettings.status, 400);
    assert.equal(badSettings.json.code, 'INVALID_REQUEST');
    const unknown = await create(u, { colour: 'blue' });
    assert.equal(unknown.status, 400);
    const wrongType = await create(u, { modelId: 42 });
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.json.param, 'modelId');
    assert.equal((await list(u)).json.items.length, 0);
  });

  test('without a session: 401', async () => {
    const r = await call(conv.createConversation, '/conversations', { method: 'POST', body: {} });
    assert.equal(r.status, 401);
    assert.equal(r.json.code, 'AUTHENTICATION_FAILED');
  });
});

describe('read, update, delete', () => {
  test('get returns every message of every branch, mapped for the browser (no document bytes)', async () => {
    const u = await newUser();
    const c = (await create(u)).json;
    const ops = userConversations(h.svc.store, u.userId);
    const q = await ops.addMessage(c.id, {
      parentId: null,
      role: 'user',
      content: 'Summarise this',
      attachments: [{ id: 'a1', name: 'notes.txt', type: 'text/plain', size: 5, kind: 'document', dataUrl: 'data:text/plain;base64,aGVsbG8=' }],
    });
    const a1 = await ops.addMessage(c.id, { parentId: q.id, role: 'assistant', content: 'First answer', modelId: 'scripted-model' });
    const a2 = await ops.addMessage(c.id, { parentId: q.id, role: 'assistant', content: 'Second answer', modelId: 'scripted-model' });
    const r = await get(u, c.id);
    assert.equal(r.status, 200);
    assert.equal(r.json.id, c.id);
    assert.deepEqual(
      r.json.messages.map((m: { id: string }) => m.id),
      [q.id, a1.id, a2.id],
    );
    const [user, first] = r.json.messages;
    assert.deepEqual(user.attachments, [{ id: 'a1', name: 'notes.txt', type: 'text/plain', size: 5, kind: 'document' }]);
    assert.ok(!r.text.includes('aGVsbG8='), 'document bytes never reach the browser');
    assert.equal(first.parentId, q.id);
    assert.equal(first.status, 'complete');
    assert.equal(first.error, null);
  });

  test('patch renames, changes the model and patches settings (null removes a key)', async () => {
    const u = await newUser();
    const c = (await create(u, { settings: { temperature: 0.5, citations: true } })).json;
    const r = await patch(u, c.id, { title: '  Trip   to Lisbon ', modelId: 'plain-model', settings: { temperature: null, webSearch: 'auto' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.title, 'Trip to Lisbon');
    assert.equal(r.json.modelId, 'plain-model');
    assert.deepEqual(r.json.settings, { citations: true, webSearch: 'auto' });
    assert.ok(r.json.updatedAt > c.updatedAt);
    const modelOnly = await patch(u, c.id, { modelId: 'vision-model' });
    assert.equal(modelOnly.json.modelId, 'vision-model');
    assert.equal(modelOnly.json.title, 'Trip to Lisbon');
    assert.deepEqual((await get(u, c.id)).json.settings, { citations: true, webSearch: 'auto' });
  });

  test('a bad patch is 400 (or 404 for an unknown model) and changes nothing', async () => {
    const u = await newUser();
    const c = (await create(u, { settings: { temperature: 0.5 } })).json;
    const cases: [unknown, number, string][] = [
      [{}, 400, 'INVALID_REQUEST'],
      [{ title: '   ', settings: { temperature: 1 } }, 400, 'INVALID_REQUEST'],
      [{ title: 'x'.repeat(201) }, 400, 'INVALID_REQUEST'],
      [{ modelId: 'nope', title: 'New' }, 404, 'MODEL_NOT_FOUND'],
      [{ settings: { temperature: 3 }, title: 'New' }, 400, 'INVALID_REQUEST'],
      [{ settings: null }, 400, 'INVALID_REQUEST'],
      [{ title: 'ok', extra: 1 }, 400, 'INVALID_REQUEST'],
    ];
    for (const [body, status, code] of cases) {
      const r = await patch(u, c.id, body);
      assert.equal(r.status, status, JSON.stringify(body));
      assert.equal(r.json.code, code);
    }
    const now = (await get(u, c.id)).json;
    assert.equal(now.title, 'New chat');
    assert.deepEqual(now.settings, { temperature: 0.5 });
    assert.equal(now.modelId, 'scripted-model');
  });

  test('delete answers 204; the conversation is gone', async () => {
    const u = await newUser();
    const c = (await create(u)).json;
    const r = await del(u, c.id);
    assert.equal(r.status, 204);
    assert.equal((await get(u, c.id)).status, 404);
    assert.equal((await del(u, c.id)).status, 404);
  });
});

describe('list', () => {
  test('pages newest first with a cursor, without repeats or gaps', async () => {
    const u = await newUser();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(u, { title: `Chat ${i}` })).json.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await list(u, `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(r.status, 200);
      assert.ok(r.json.items.length <= 2);
      seen.push(...r.json.items.map((c: { id: string }) => c.id));
      cursor = r.json.nextCursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...ids].reverse());
  });

  test('a bad limit or cursor is 400 naming it', async () => {
    const u = await newUser();
    for (const [query, param] of [
      ['?limit=0', 'limit'],
      ['?limit=abc', 'limit'],
      ['?limit=1000', 'limit'],
      ['?cursor=not-a-cursor', 'cursor'],
    ]) {
      const r = await list(u, query);
      assert.equal(r.status, 400, query);
      assert.equal(r.json.param, param);
    }
  });
});

describe('export', () => {
  test('Markdown and JSON of the latest branch (or the one named by leaf), as downloads with a safe file name', async () => {
    const u = await newUser();
    const c = (await create(u, { title: 'Plans: "Q3" / <draft>\u202E.exe' })).json;
    const ops = userConversations(h.svc.store, u.userId);
    const q = await ops.addMessage(c.id, { parentId: null, role: 'user', content: 'What is 2+2?' });
    const a1 = await ops.addMessage(c.id, { parentId: q.id, role: 'assistant', content: 'Four.', modelId: 'scripted-model' });
    await ops.addMessage(c.id, { parentId: q.id, role: 'assistant', content: 'It is 4.', modelId: 'scripted-model' });

    const md = await exp(u, c.id, 'format=md');
    assert.equal(md.status, 200);
    assert.equal(md.headers.get('content-type'), 'text/markdown; charset=utf-8');
    assert.equal(md.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(md.headers.get('cache-control'), 'no-store');
    assert.match(md.text, /^# Plans/);
    assert.match(md.text, /## User\n\nWhat is 2\+2\?/);
    assert.match(md.text, /It is 4\./);
    assert.doesNotMatch(md.text, /Four\./, 'only the latest branch');
    const day = new Date(c.createdAt).toISOString().slice(0, 10);
    const disposition = md.headers.get('content-disposition') ?? '';
    assert.equal(disposition, `attachment; filename="Plans Q3 draft .exe ${day}.md"; filename*=UTF-8''Plans%20Q3%20draft%20.exe%20${day}.md`);

    const json = await exp(u, c.id, `format=json&leaf=${a1.id}`);
    assert.equal(json.status, 200);
    assert.equal(json.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.match(json.headers.get('content-disposition') ?? '', /filename="Plans Q3 draft \.exe \d{4}-\d{2}-\d{2}\.json"/);
    assert.equal(json.json.id, c.id);
    assert.deepEqual(
      json.json.messages.map((m: { content: string }) => m.content),
      ['What is 2+2?', 'Four.'],
    );

    const bad = await exp(u, c.id, 'format=pdf');
    assert.equal(bad.status, 400);
    assert.equal(bad.json.param, 'format');
    const badLeaf = await exp(u, c.id, 'leaf=nope');
    assert.equal(badLeaf.status, 404);
  });

  test('leaf names a branch as the chat shows it (continued to its newest turn); branches=all writes every version in JSON', async () => {
    const u = await newUser();
    const c = (await create(u, { title: 'Branches' })).json;
    const ops = userConversations(h.svc.store, u.userId);
    const q1 = await ops.addMessage(c.id, { parentId: null, role: 'user', content: 'First version' });
    await ops.addMessage(c.id, { parentId: q1.id, role: 'assistant', content: 'Answer A' });
    const q2 = await ops.addMessage(c.id, { parentId: null, role: 'user', content: 'Second version' });
    await ops.addMessage(c.id, { parentId: q2.id, role: 'assistant', content: 'Answer B' });

    const first = await exp(u, c.id, `format=json&leaf=${q1.id}`);
    assert.deepEqual(
      first.json.messages.map((m: { content: string }) => m.content),
      ['First version', 'Answer A'],
    );
    const md = await exp(u, c.id, `format=md&leaf=${q1.id}`);
    assert.match(md.text, /Answer A/);
    assert.doesNotMatch(md.text, /Second version|Answer B/);

    const all = await exp(u, c.id, 'format=json&branches=all');
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.json.messages.map((m: { content: string; parentId: string | null }) => [m.content, m.parentId]),
      [
        ['First version', null],
        ['Answer A', q1.id],
        ['Second version', null],
        ['Answer B', q2.id],
      ],
    );
    const mdAll = await exp(u, c.id, 'format=md&branches=all');
    assert.equal(mdAll.status, 400);
    assert.equal(mdAll.json.param, 'branches');
  });

  test('a title with only unusable characters still gives a file name; Unicode titles keep a readable filename*', async () => {
    const u = await newUser();
    const c = (await create(u, { title: '旅行の計画' })).json;
    const r = await exp(u, c.id, 'format=md');
    const d = r.headers.get('content-disposition') ?? '';
    assert.match(d, /^attachment; filename="conversation \d{4}-\d{2}-\d{2}\.md"; filename\*=UTF-8''%E6%97%85/);
  });
});

describe('search', () => {
  test('finds titles and message text with a snippet; an empty query finds nothing', async () => {
    const u = await newUser();
    const c = (await create(u, { title: 'Gardening' })).json;
    await userConversations(h.svc.store, u.userId).addMessage(c.id, { parentId: null, role: 'user', content: 'How deep should tulip bulbs be planted?' });
    const r = await search(u, 'TULIP');
    assert.equal(r.status, 200);
    assert.equal(r.json.hits.length, 1);
    assert.equal(r.json.hits[0].conversation.id, c.id);
    assert.match(r.json.hits[0].snippet, /tulip/i);
    assert.ok(r.json.hits[0].messageId);
    const byTitle = await search(u, 'garden');
    assert.equal(byTitle.json.hits[0].messageId, null);
    assert.deepEqual((await search(u, '   ')).json, { hits: [] });
    assert.equal((await search(u, 'x'.repeat(201))).status, 400);
  });
});

describe('isolation', () => {
  test('another user cannot read, rename, re-model, delete, export or find a conversation (404, unchanged)', async () => {
    const a = await newUser();
    const b = await newUser();
    const c = (await create(a, { title: 'Secret plans' })).json;
    await userConversations(h.svc.store, a.userId).addMessage(c.id, { parentId: null, role: 'user', content: 'the launch code is zebra' });
    for (const r of [
      await get(b, c.id),
      await patch(b, c.id, { title: 'Mine now' }),
      await patch(b, c.id, { modelId: 'plain-model' }),
      await patch(b, c.id, { settings: { temperature: 1 } }),
      await del(b, c.id),
      await exp(b, c.id, 'format=md'),
      await exp(b, c.id, 'format=json'),
    ]) {
      assert.equal(r.status, 404);
      assert.equal(r.json.code, 'NOT_FOUND');
      assert.doesNotMatch(r.text, /zebra|Secret/);
    }
    assert.deepEqual((await search(b, 'zebra')).json, { hits: [] });
    assert.deepEqual((await list(b)).json.items, []);
    const still = await get(a, c.id);
    assert.equal(still.json.title, 'Secret plans');
    assert.equal(still.json.modelId, 'scripted-model');
    assert.deepEqual(still.json.settings, {});
  });
});
