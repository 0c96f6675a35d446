// Share links on a real service: the owner shares the branch on screen, anyone opens it signed out (that branch only,
// nothing of the account), images come through the share's own route, another user can neither list nor revoke it,
// revoking (or deleting the chat) makes it 404, and "continue this chat" copies it into the reader's own new chat.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../../e2e/support/harness.ts';
import { call, PNG_1X1, testUser, type TestUser } from '../../e2e/support/app-chat.ts';
import { userConversations } from './conversations.ts';
import { userImages } from './images.ts';
import { conversationRoutes } from './app-routes.ts';
import { shareRoutes } from './app-shares.ts';
import { shareExists } from './shares.ts';
import type { AppConversationWithMessages, AppShare, AppShareList, AppSharedChat } from '../wire.ts';

let h: Harness;
let shares: ReturnType<typeof shareRoutes>;
let conv: ReturnType<typeof conversationRoutes>;
let alice: TestUser;
let bob: TestUser;

before(async () => {
  h = await startHarness();
  const deps = { svc: h.svc, app: h.svc.config.app };
  shares = shareRoutes(deps);
  conv = conversationRoutes(deps);
  alice = await testUser(h.svc.store);
  bob = await testUser(h.svc.store);
});
after(() => h.close());

/** A chat with two branches: the first question answered twice, the second answer carrying on further. */
async function branchedChat(who: TestUser) {
  const ops = userConversations(h.svc.store, who.user.id);
  const c = await ops.create({ title: 'Tide tables', modelId: 'scripted-model' });
  const q = await ops.addMessage(c.id, {
    parentId: null,
    role: 'user',
    content: 'When is high tide?',
    attachments: [
      { id: 'a1', name: 'chart.png', type: 'image/png', size: 68, kind: 'image', dataUrl: `data:image/png;base64,${PNG_1X1}` },
      { id: 'a2', name: 'notes.txt', type: 'text/plain', size: 5, kind: 'document', dataUrl: 'data:text/plain;base64,c2VjcmV0' },
    ],
  });
  const other = await ops.addMessage(c.id, {
    parentId: q.id,
    role: 'assistant',
    content: 'OTHER BRANCH answer',
    status: 'complete',
    modelId: 'scripted-model',
    usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3, costUsd: 0.0123, costDiem: 0 },
  });
  const a = await ops.addMessage(c.id, {
    parentId: q.id,
    role: 'assistant',
    content: 'High tide is at **6:12**.',
    reasoning: 'Looked at the chart.',
    status: 'complete',
    modelId: 'scripted-model',
    citations: [{ url: 'https://tides.example/today', title: 'Tides today' }],
    usage: { promptTokens: 10, completionTokens: 20, totalTokens: 30, costUsd: 0.0456, costDiem: 0 },
    memories: [{ id: 'm1', content: 'MEMORY lives in Porto' }],
  });
  await ops.updateMessage(a.id, {
    toolSteps: [
      { id: 't1', round: 0, name: 'lookup', server: 'tides', arguments: '{"token":"TOOL-SECRET"}', status: 'done', result: 'TOOL RESULT', startedAt: 1, ms: 2 },
    ],
  });
  const q2 = await ops.addMessage(c.id, { parentId: a.id, role: 'user', content: 'And tomorrow?' });
  const a2 = await ops.addMessage(c.id, { parentId: q2.id, role: 'assistant', content: 'About an hour later.', status: 'complete' });
  // A picture the chat made, on the last answer.
  const png = Buffer.from(PNG_1X1, 'base64');
  const made = await userImages(h.svc.store, who.user.id).add({
    conversationId: c.id,
    messageId: a2.id,
    sourceId: null,
    action: 'generate',
    modelId: 'image-model',
    prompt: 'a tide chart',
    params: {},
    seed: 7,
    width: 1,
    height: 1,
    contentType: 'image/png',
    requestId: 'req-image',
    costUsd: 10,
    costDiem: 0,
    data: png,
  });
  await userImages(h.svc.store, who.user.id).attach(a2.id, made);
  return { c, q, other, a, q2, a2 };
}

const create = (who: TestUser | undefined, id: string, leafId: string) =>
  call(shares.createShare, 'POST', `/conversations/${id}/shares`, who, { body: { leafId }, params: { id } });
const open = (token: string) => call(shares.openShare, 'GET', `/shares/${token}`, undefined, { params: { token } });
const file = (token: string, n: string) => call(shares.shareFile, 'GET', `/shares/${token}/files/${n}`, undefined, { params: { token, n } });
const list = (who: TestUser, query = '') => call(shares.listShares, 'GET', `/shares${query}`, who);
const revoke = (who: TestUser, token: string) => call(shares.revokeShare, 'DELETE', `/shares/${token}`, who, { params: { token } });
const cont = (who: TestUser | undefined, token: string) => call(shares.continueShare, 'POST', `/shares/${token}/continue`, who, { params: { token } });

describe('share links', () => {
  test('the branch on screen is shared; opened signed out, it holds that branch only and nothing of the account', async () => {
    const { c, a, other } = await branchedChat(alice);
    // The owner is looking at the second answer's branch (through its first answer, continued to its newest turn).
    const r = await create(alice, c.id, a.id);
    assert.equal(r.status, 201);
    const share = (await r.json()) as AppShare;
    assert.match(share.token, /^[A-Za-z0-9_-]{32}$/);
    assert.equal(share.path, `/s/${share.token}`);
    assert.equal(share.messageCount, 4);
    assert.equal(share.conversationId, c.id);

    const o = await open(share.token);
    assert.equal(o.status, 200);
    assert.equal(o.headers.get('x-robots-tag'), 'noindex, nofollow');
    const text = await o.text();
    const chat = JSON.parse(text) as AppSharedChat;
    assert.equal(chat.title, 'Tide tables');
    assert.deepEqual(
      chat.messages.map((m) => [m.role, m.content]),
      [
        ['user', 'When is high tide?'],
        ['assistant', 'High tide is at **6:12**.'],
        ['user', 'And tomorrow?'],
        ['assistant', 'About an hour later.'],
      ],
    );
    assert.equal(chat.messages[1].reasoning, 'Looked at the chart.');
    assert.deepEqual(chat.messages[1].citations, [{ url: 'https://tides.example/today', title: 'Tides today' }]);
    assert.deepEqual(chat.messages[1].tools, [{ name: 'lookup', server: 'tides', status: 'done' }]);
    // No other branch, usage, cost, memory, tool arguments or results, ids, document bytes or owner.
    for (const leak of [
      other.content,
      'OTHER BRANCH',
      '0.0456',
      'costUsd',
      'usage',
      'MEMORY',
      'TOOL-SECRET',
      'TOOL RESULT',
      'c2VjcmV0',
      c.id,
      a.id,
      alice.user.id,
      alice.user.email,
    ]) {
      assert.ok(!text.includes(leak), `the snapshot leaks ${leak}`);
    }
    // Files: the uploaded image and the made picture through the share's route; the document by name only.
    const [img, doc] = chat.messages[0].attachments;
    assert.deepEqual(doc, { name: 'notes.txt', type: 'text/plain', size: 5, kind: 'document' });
    assert.equal(img.url, `/api/app/shares/${share.token}/files/0`);
    const made = chat.messages[3].attachments[0];
    assert.equal(made.kind, 'image');
    assert.equal(made.url, `/api/app/shares/${share.token}/files/1`);
    for (const n of ['0', '1']) {
      const f = await file(share.token, n);
      assert.equal(f.status, 200);
      assert.equal(f.headers.get('content-type'), 'image/png');
      assert.equal(f.headers.get('x-content-type-options'), 'nosniff');
      assert.deepEqual(Buffer.from(await f.arrayBuffer()), Buffer.from(PNG_1X1, 'base64'));
    }
    assert.equal((await file(share.token, '2')).status, 404);
    assert.equal((await file(share.token, '../0')).status, 404);
    assert.equal(await shareExists(h.svc.store, share.token), true);
  });

  test('the other branch is shared on its own when it is the one on screen', async () => {
    const { c, other } = await branchedChat(alice);
    const share = (await (await create(alice, c.id, other.id)).json()) as AppShare;
    const chat = (await (await open(share.token)).json()) as AppSharedChat;
    assert.deepEqual(
      chat.messages.map((m) => m.content),
      ['When is high tide?', 'OTHER BRANCH answer'],
    );
  });

  test('the owner lists their links; another user sees none, cannot make one of this chat, nor revoke it', async () => {
    const { c, a } = await branchedChat(alice);
    const share = (await (await create(alice, c.id, a.id)).json()) as AppShare;
    const mine = (await (await list(alice, `?conversation=${c.id}`)).json()) as AppShareList;
    assert.deepEqual(
      mine.items.map((s) => s.token),
      [share.token],
    );
    assert.ok(((await (await list(alice)).json()) as AppShareList).items.some((s) => s.token === share.token));
    assert.deepEqual(((await (await list(bob)).json()) as AppShareList).items, []);
    assert.equal((await create(bob, c.id, a.id)).status, 404);
    assert.equal((await revoke(bob, share.token)).status, 404);
    assert.equal((await open(share.token)).status, 200, 'still live after the other user tried');
    assert.equal((await create(undefined, c.id, a.id)).status, 401);
    assert.equal((await create(alice, c.id, 'not-a-message')).status, 404);
    // CSRF: a share made without the token is refused.
    const noCsrf = await call(shares.createShare, 'POST', `/conversations/${c.id}/shares`, alice, {
      body: { leafId: a.id },
      params: { id: c.id },
      noCsrf: true,
    });
    assert.equal(noCsrf.status, 403);
  });

  test('revoked: the link, its images and its page are gone (404)', async () => {
    const { c, a } = await branchedChat(alice);
    const share = (await (await create(alice, c.id, a.id)).json()) as AppShare;
    const r = await revoke(alice, share.token);
    assert.equal(r.status, 204);
    const gone = await open(share.token);
    assert.equal(gone.status, 404);
    assert.equal(((await gone.json()) as { code: string }).code, 'NOT_FOUND');
    assert.equal((await file(share.token, '0')).status, 404);
    assert.equal(await shareExists(h.svc.store, share.token), false);
    assert.equal((await revoke(alice, share.token)).status, 404);
    assert.equal((await cont(bob, share.token)).status, 404);
    assert.equal((await open('x'.repeat(32))).status, 404);
    assert.equal((await open('../etc')).status, 404);
  });

  test('deleting the chat deletes its links', async () => {
    const { c, a } = await branchedChat(alice);
    const share = (await (await create(alice, c.id, a.id)).json()) as AppShare;
    const del = await call(conv.deleteConversation, 'DELETE', `/conversations/${c.id}`, alice, { params: { id: c.id } });
    assert.equal(del.status, 204);
    assert.equal((await open(share.token)).status, 404);
  });

  test('continue this chat: a signed-in reader gets a new chat of their own with the shared branch', async () => {
    const { c, a } = await branchedChat(alice);
    const share = (await (await create(alice, c.id, a.id)).json()) as AppShare;
    assert.equal((await cont(undefined, share.token)).status, 401);
    const r = await cont(bob, share.token);
    assert.equal(r.status, 201);
    const copy = (await r.json()) as { id: string; title: string; modelId: string };
    assert.notEqual(copy.id, c.id);
    assert.equal(copy.title, 'Tide tables');
    assert.equal(copy.modelId, 'scripted-model');
    const got = await call(conv.getConversation, 'GET', `/conversations/${copy.id}`, bob, { params: { id: copy.id } });
    const full = (await got.json()) as AppConversationWithMessages;
    assert.deepEqual(
      full.messages.map((m) => m.content),
      ['When is high tide?', 'High tide is at **6:12**.', 'And tomorrow?', 'About an hour later.'],
    );
    // One branch, a chain: each message answers the one before.
    full.messages.forEach((m, i) => assert.equal(m.parentId, i === 0 ? null : full.messages[i - 1].id));
    assert.ok(
      full.messages.every((m) => m.usage === null || m.usage.costUsd === 0),
      'no cost is copied',
    );
    // The user's image keeps its thumbnail; the made picture became bob's own image.
    assert.match(full.messages[0].attachments[0].previewUrl ?? '', /^data:image\/png;base64,/);
    const bobs = await userImages(h.svc.store, bob.user.id).list({ conversationId: copy.id });
    assert.equal(bobs.items.length, 1);
    assert.equal(bobs.items[0].messageId, full.messages[3].id);
    // Alice's chat is untouched and still not bob's.
    assert.equal((await call(conv.getConversation, 'GET', `/conversations/${c.id}`, bob, { params: { id: c.id } })).status, 404);
    assert.equal((await userConversations(h.svc.store, alice.user.id).get(c.id)).messages.length, 5);
  });
});
