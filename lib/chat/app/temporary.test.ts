// Temporary chats: a turn runs through the usual generation (streamed, stoppable, billed as any answer) but nothing of
// it is stored: no conversation, no message, nothing in the history or search; the browser sends the branch each turn.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../../../e2e/support/harness.ts';
import { call, EventReader, testUser, type TestUser, until } from '../../../e2e/support/app-chat.ts';
import type { AppMessage, GenerationEvent, TemporaryTurnResponse } from '../../wire.ts';
import { chatRoutes } from '../app-routes.ts';
import { userConversations } from '../../conversations/conversations.ts';

describe('temporary chats', () => {
  let h: Harness;
  let chat: ReturnType<typeof chatRoutes>;
  let alice: TestUser;
  let bob: TestUser;

  before(async () => {
    h = await startHarness();
    chat = chatRoutes({ svc: h.svc, app: h.svc.config.app });
    alice = await testUser(h.svc.store);
    bob = await testUser(h.svc.store);
  });
  after(async () => {
    await chat.close();
    await h.close();
  });

  const turn = (who: TestUser, body: Record<string, unknown>) =>
    call(chat.temporaryTurn, 'POST', '/chat/temporary', who, { body: { chatId: 'temporary-1', history: [], ...body } });
  async function finish(who: TestUser, id: string): Promise<AppMessage> {
    const events: GenerationEvent[] = await new EventReader(await call(chat.streamMessage, 'GET', `/messages/${id}/stream`, who, { params: { id } })).rest();
    const done = events.at(-1);
    assert.equal(done?.type, 'done', JSON.stringify(events));
    return (done as { message: AppMessage }).message;
  }
  const count = async (sql: string, id: string) => Number((await h.svc.store.get<{ n: number | string }>(sql, [id]))?.n ?? 0);
  const stored = async (who: TestUser) => ({
    conversations: await count('SELECT COUNT(*) AS n FROM conversations WHERE user_id = $1', who.user.id),
    messages: await count('SELECT COUNT(*) AS n FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.user_id = $1', who.user.id),
    usage: await count('SELECT COUNT(*) AS n FROM usage WHERE account_id = $1', who.user.accountId),
  });

  test('a turn is answered and billed, and nothing of it is stored', async () => {
    const before = await stored(alice);
    const r = await turn(alice, { content: 'Name a lighthouse [[reply:The Tower of Hercules.]]', settings: { temperature: 0.2 } });
    assert.equal(r.status, 201);
    const { user, assistant } = (await r.json()) as TemporaryTurnResponse;
    assert.equal(user?.conversationId, 'temporary-1');
    assert.equal(assistant.parentId, user?.id);
    assert.equal(assistant.status, 'streaming');
    const done = await finish(alice, assistant.id);
    assert.equal(done.content, 'The Tower of Hercules.');
    assert.equal(done.status, 'complete');
    assert.ok(done.usage && done.usage.costUsd > 0, 'billed as usual');
    // A stream that attaches after the end still gets the answer; a stop after the end returns it.
    assert.equal((await finish(alice, assistant.id)).content, 'The Tower of Hercules.');
    const stop = await call(chat.stopMessage, 'POST', `/messages/${assistant.id}/stop`, alice, { params: { id: assistant.id } });
    assert.equal(((await stop.json()) as { message: AppMessage }).message.content, 'The Tower of Hercules.');

    // The usage row is written by the ledger's group commit, a moment after the answer.
    await until('the usage row', async () => (await stored(alice)).usage === before.usage + 1);
    const now = await stored(alice);
    assert.equal(now.conversations, before.conversations, 'no conversation row');
    assert.equal(now.messages, before.messages, 'no message row');
    assert.equal(now.usage, before.usage + 1, 'one usage row: billed');
    assert.deepEqual(await userConversations(h.svc.store, alice.user.id).search('lighthouse'), []);
    // Another user cannot attach to it.
    assert.equal((await call(chat.streamMessage, 'GET', `/messages/${assistant.id}/stream`, bob, { params: { id: assistant.id } })).status, 404);
  });

  test('the branch comes from the browser: a second turn reads it, and an answer can be asked again', async () => {
    const history = [
      { id: 'u1', role: 'user', content: 'My boat is called Petrel.' },
      { id: 'a1', role: 'assistant', content: 'A fine name.' },
    ];
    const r = await turn(alice, { history, content: 'What is it called? [[echo_request]]' });
    assert.equal(r.status, 201);
    const { user, assistant } = (await r.json()) as TemporaryTurnResponse;
    assert.equal(user?.parentId, 'a1');
    const done = await finish(alice, assistant.id);
    assert.equal(done.status, 'complete');
    // The model read the branch the browser sent (after the service's own system prompt), and no memory.
    const sent = JSON.parse(done.content) as { role: string; content: string }[];
    assert.deepEqual(
      sent.filter((m) => m.role !== 'system').map((m) => [m.role, m.content]),
      [
        ['user', 'My boat is called Petrel.'],
        ['assistant', 'A fine name.'],
        ['user', 'What is it called? [[echo_request]]'],
      ],
    );
    // Again: no content, the history ends with the question.
    const again = await turn(alice, { history: [...history, { id: user!.id, role: 'user', content: user!.content }] });
    assert.equal(again.status, 201);
    const second = (await again.json()) as TemporaryTurnResponse;
    assert.equal(second.user, null);
    assert.equal(second.assistant.parentId, user!.id);
    assert.equal((await finish(alice, second.assistant.id)).status, 'complete');
  });

  test('bad turns are refused before anything runs', async () => {
    assert.equal((await turn(alice, { content: '   ' })).status, 400);
    assert.equal((await turn(alice, { history: [{ id: 'a', role: 'assistant', content: 'hi' }] })).status, 400);
    assert.equal((await turn(alice, { chatId: 'conv-123', content: 'hi' })).status, 400);
    assert.equal((await turn(alice, { content: 'hi', settings: { tools: ['x'] } })).status, 400);
    const noCsrf = await call(chat.temporaryTurn, 'POST', '/chat/temporary', alice, {
      body: { chatId: 'temporary-1', history: [], content: 'hi' },
      noCsrf: true,
    });
    assert.equal(noCsrf.status, 403);
    assert.equal(
      (await call(chat.temporaryTurn, 'POST', '/chat/temporary', undefined, { body: { chatId: 'temporary-1', history: [], content: 'hi' } })).status,
      401,
    );
  });
  test('files and tools in a temporary chat: read for the turn, sent again by the browser, nothing stored', async () => {
    const before = await stored(alice);
    const file = { name: 'tides.txt', type: 'text/plain', dataUrl: `data:text/plain;base64,${Buffer.from('OCELOT tide tables').toString('base64')}` };
    const r = await turn(alice, { content: 'Read this [[echo_request]]', attachments: [file] });
    assert.equal(r.status, 201, await r.clone().text());
    const first = (await r.json()) as TemporaryTurnResponse;
    assert.deepEqual(
      first.user?.attachments.map((a) => a.name),
      ['tides.txt'],
    );
    assert.match((await finish(alice, first.assistant.id)).content, /OCELOT tide tables/);

    // The next turn: the browser holds the file and sends it again with the branch.
    const history = [
      { id: first.user!.id, role: 'user', content: 'Read this', attachments: [file] },
      { id: first.assistant.id, role: 'assistant', content: 'Read.' },
    ];
    const again = (await (await turn(alice, { history, content: 'Once more [[echo_request]]' })).json()) as TemporaryTurnResponse;
    assert.match((await finish(alice, again.assistant.id)).content, /OCELOT tide tables/);

    // Files are checked as a stored chat's are.
    const exe = await turn(alice, {
      content: 'Run it',
      attachments: [{ name: 'a.exe', type: 'application/x-msdownload', dataUrl: 'data:application/x-msdownload;base64,TVqQAAMA' }],
    });
    assert.equal(exe.status, 400);
    const orphan = await turn(alice, { history: [{ id: 'u1', role: 'user', content: 'hi' }], attachments: [file] });
    assert.equal(orphan.status, 400);

    // Tools: the chat's switched-on tools run as in a stored chat (here the built-in code runner).
    const t = await turn(alice, { content: 'Multiply [[tool:run_javascript:{"code":"6*7"}]]', settings: { tools: ['builtin:code'] } });
    assert.equal(t.status, 201, await t.clone().text());
    const { assistant } = (await t.json()) as TemporaryTurnResponse;
    const events: GenerationEvent[] = await new EventReader(
      await call(chat.streamMessage, 'GET', `/messages/${assistant.id}/stream`, alice, { params: { id: assistant.id } }),
    ).rest();
    const steps = events.filter((e) => e.type === 'tool');
    assert.ok(steps.length > 0, JSON.stringify(events));
    assert.match(JSON.stringify(steps), /42/);
    assert.equal(events.at(-1)?.type, 'done');

    await until('the usage rows', async () => (await stored(alice)).usage >= before.usage + 4);
    const now = await stored(alice);
    assert.equal(now.conversations, before.conversations, 'no conversation row');
    assert.equal(now.messages, before.messages, 'no message row, so no stored file');
    assert.deepEqual(await userConversations(h.svc.store, alice.user.id).search('OCELOT'), []);
  });
});
