// The memory routes and memories in chats, on SQLite and PostgreSQL: save, list, edit, switch off, delete and
// export; the checks (400s, 404 for another user's memory or message, one memory per source message, the cap); and
// through the chat routes: an answer's prompt holds the user's enabled memories (and the answer lists them), never
// another user's, none when the chat's switch is off, none once deleted, and no more than the token budget allows.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BACKENDS, type Dash, type DashUser, startDash } from '../../e2e/support/app-dash.ts';
import { chatRoutes } from '../chat/app-routes.ts';
import { userConversations } from '../conversations/conversations.ts';
import type { AppConversationWithMessages, AppMessage, SendMessageResponse } from '../wire.ts';
import { MAX_MEMORIES, MAX_MEMORY_CHARS } from './memories.ts';
import { MEMORY_HEADER } from './prompt.ts';
import type { AppMemory, AppMemoryList } from './wire.ts';

for (const backend of BACKENDS)
  describe(`memory routes (${backend})`, () => {
    let d: Dash;
    let alice: DashUser;
    let bob: DashUser;

    before(async () => {
      d = await startDash(backend);
      alice = await d.newUser();
      bob = await d.newUser();
    });
    after(() => d?.close());

    const list = async (who: DashUser) => {
      const r = await d.call(d.routes.listMemories, '/memories', { browser: who.browser });
      assert.equal(r.status, 200, r.text);
      return r.json as AppMemoryList;
    };
    const create = (who: DashUser, body: unknown) => d.call(d.routes.createMemory, '/memories', { method: 'POST', body, browser: who.browser });
    const patch = (who: DashUser, id: string, body: unknown) =>
      d.call(d.routes.updateMemory, `/memories/${id}`, { method: 'PATCH', body, browser: who.browser }, { id });
    const del = (who: DashUser, id: string) => d.call(d.routes.deleteMemory, `/memories/${id}`, { method: 'DELETE', browser: who.browser }, { id });
    const remember = async (who: DashUser, content: string): Promise<AppMemory> => {
      const r = await create(who, { content });
      assert.equal(r.status, 201, r.text);
      return r.json as AppMemory;
    };

    /** Sends one message in a new chat (settings as given) and waits for the whole answer. */
    async function ask(who: DashUser, content: string, settings: Record<string, unknown> = {}, routes = d.routes): Promise<AppMessage> {
      const c = await userConversations(d.h.svc.store, who.user.id).create({ settings });
      const sent = await d.call(
        routes.sendMessage,
        `/conversations/${c.id}/messages`,
        { method: 'POST', body: { parentId: null, content }, browser: who.browser },
        { id: c.id },
      );
      assert.equal(sent.status, 201, sent.text);
      const id = (sent.json as SendMessageResponse).assistant.id;
      // The stream ends with the answer's `done`.
      await d.call(routes.streamMessage, `/messages/${id}/stream`, { browser: who.browser }, { id });
      const got = await d.call(d.routes.getConversation, `/conversations/${c.id}`, { browser: who.browser }, { id: c.id });
      const answer = (got.json as AppConversationWithMessages).messages.find((m) => m.id === id);
      assert.equal(answer?.status, 'complete', JSON.stringify(answer));
      return answer;
    }
    /** The system text the model received ([[echo_request]] answers with the request's messages; the service joins system messages). */
    const systemOf = (answer: AppMessage): string =>
      (JSON.parse(answer.content) as { role: string; content: string }[])
        .filter((m) => m.role === 'system')
        .map((m) => m.content)
        .join('\n\n');

    test('save, list, edit, switch off and delete; each answers in the wire shape', async () => {
      const empty = await list(alice);
      assert.deepEqual(empty, { items: [], max: MAX_MEMORIES, maxChars: MAX_MEMORY_CHARS, tokenBudget: 600 });
      const m = await remember(alice, '  I prefer   metric units \n ');
      assert.deepEqual(Object.keys(m).sort(), ['content', 'createdAt', 'enabled', 'id', 'sourceMessageId', 'updatedAt']);
      assert.equal(m.content, 'I prefer metric units');
      assert.equal(m.enabled, true);
      assert.equal(m.sourceMessageId, null);
      const second = await remember(alice, 'My dog is called Pixel');
      assert.deepEqual(
        (await list(alice)).items.map((x) => x.content),
        ['I prefer metric units', 'My dog is called Pixel'],
      );

      const edited = await patch(alice, m.id, { content: 'I prefer imperial units' });
      assert.equal(edited.status, 200, edited.text);
      assert.equal(edited.json.content, 'I prefer imperial units');
      assert.ok(edited.json.updatedAt > m.updatedAt);
      const off = await patch(alice, m.id, { enabled: false });
      assert.equal(off.json.enabled, false);
      assert.equal(off.json.content, 'I prefer imperial units');

      assert.equal((await del(alice, second.id)).status, 204);
      assert.equal((await del(alice, second.id)).status, 404);
      assert.deepEqual(
        (await list(alice)).items.map((x) => [x.content, x.enabled]),
        [['I prefer imperial units', false]],
      );
    });

    test('bad input is a 400 in the one error body and changes nothing; CSRF and sign-in are required', async () => {
      const before = (await list(alice)).items.length;
      for (const body of [{ content: '   ' }, { content: 'x'.repeat(MAX_MEMORY_CHARS + 1) }, { content: 'ok', extra: 1 }, {}, { content: 7 }]) {
        const r = await create(alice, body);
        assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 60)}: ${r.text}`);
        assert.equal(r.json.code, 'INVALID_REQUEST');
      }
      const m = await remember(alice, 'Temporary');
      for (const body of [{}, { enabled: 'yes' }, { content: '' }]) {
        const r = await patch(alice, m.id, body);
        assert.equal(r.status, 400, r.text);
      }
      assert.equal((await list(alice)).items.length, before + 1);
      const noCsrf = await d.call(d.routes.createMemory, '/memories', { method: 'POST', body: { content: 'x' }, browser: alice.browser, noCsrf: true });
      assert.equal(noCsrf.status, 403, noCsrf.text);
      assert.equal((await d.call(d.routes.listMemories, '/memories')).status, 401);
      assert.equal((await del(alice, m.id)).status, 204);
    });

    test("never shared: another user's memory is 404 to read, edit or delete, and absent from their list and export", async () => {
      const secret = await remember(alice, 'My locker code is 4711');
      assert.equal((await patch(bob, secret.id, { enabled: false })).status, 404);
      assert.equal((await del(bob, secret.id)).status, 404);
      assert.ok(!(await list(bob)).items.some((x) => x.id === secret.id));
      const exp = await d.call(d.routes.exportMemories, '/memories/export', { browser: bob.browser });
      assert.equal(exp.status, 200);
      assert.ok(!exp.text.includes('4711'));
      assert.equal((await list(alice)).items.find((x) => x.id === secret.id)?.enabled, true);
      assert.equal((await del(alice, secret.id)).status, 204);
    });

    test("saved from a message: only the user's own message, and once (the same text again answers the same memory)", async () => {
      const c = await userConversations(d.h.svc.store, alice.user.id).create();
      const msg = await userConversations(d.h.svc.store, alice.user.id).addMessage(c.id, {
        parentId: null,
        role: 'user',
        content: 'Remember that I am vegetarian',
      });
      const first = await create(alice, { content: 'I am vegetarian', sourceMessageId: msg.id });
      assert.equal(first.status, 201, first.text);
      assert.equal(first.json.sourceMessageId, msg.id);
      const again = await create(alice, { content: 'I am vegetarian', sourceMessageId: msg.id });
      assert.equal(again.status, 200);
      assert.equal(again.json.id, first.json.id);
      // Other text from the same message is another memory, not lost.
      const other = await create(alice, { content: 'I do not eat fish either', sourceMessageId: msg.id });
      assert.equal(other.status, 201, other.text);
      assert.notEqual(other.json.id, first.json.id);
      assert.equal((await del(alice, other.json.id)).status, 204);
      const foreign = await create(bob, { content: 'stolen', sourceMessageId: msg.id });
      assert.equal(foreign.status, 404, foreign.text);
      assert.equal((await del(alice, first.json.id)).status, 204);
    });

    test('the export holds every memory of the user, as a JSON download', async () => {
      const m = await remember(alice, 'Exported fact');
      const r = await d.call(d.routes.exportMemories, '/memories/export', { browser: alice.browser });
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-disposition') ?? '', /^attachment; filename="Lagoon memories \d{4}-\d\d-\d\d\.json"/);
      assert.equal(r.headers.get('cache-control'), 'no-store');
      assert.equal(r.json.kind, 'lagoon.memories');
      assert.equal(r.json.user.email, alice.email);
      const mine = (await list(alice)).items;
      assert.deepEqual(
        r.json.memories.map((x: { content: string; enabled: boolean }) => [x.content, x.enabled]),
        mine.map((x) => [x.content, x.enabled]),
      );
      assert.equal((await del(alice, m.id)).status, 204);
    });

    test('in chats: enabled memories reach the prompt and are listed on the answer; not when disabled, switched off, deleted, or another user', async () => {
      const carol = await d.newUser();
      const teal = (await create(carol, { content: 'My favourite colour is teal' })).json as AppMemory;
      const off = (await create(carol, { content: 'I live on the Moon' })).json as AppMemory;
      assert.equal((await patch(carol, off.id, { enabled: false })).status, 200);

      const used = await ask(carol, 'What colour? [[echo_request]]');
      const system = systemOf(used);
      assert.ok(system.endsWith(`\n\n${MEMORY_HEADER}\n- My favourite colour is teal`), system);
      assert.ok(!system.includes('Moon'));
      assert.deepEqual(used.memories, [{ id: teal.id, content: 'My favourite colour is teal' }]);

      // The chat's own switch, set as the chat settings set it (and read back).
      const chat = await userConversations(d.h.svc.store, carol.user.id).create();
      const set = await d.call(
        d.routes.updateConversation,
        `/conversations/${chat.id}`,
        { method: 'PATCH', body: { settings: { memory: false } }, browser: carol.browser },
        { id: chat.id },
      );
      assert.equal(set.status, 200, set.text);
      assert.equal(set.json.settings.memory, false);
      const switchedOff = await ask(carol, 'What colour? [[echo_request]]', { memory: false });
      assert.ok(!switchedOff.content.includes('teal'));
      assert.equal(switchedOff.memories, undefined);

      // Another user's chat never sees them.
      const other = await ask(bob, 'What colour? [[echo_request]]');
      assert.ok(!other.content.includes('teal') && !other.content.includes(MEMORY_HEADER));

      // Deleted: gone from the next prompt; the earlier answer still shows what it was given.
      assert.equal((await del(carol, teal.id)).status, 204);
      const after = await ask(carol, 'What colour? [[echo_request]]');
      assert.ok(!after.content.includes('teal') && !after.content.includes(MEMORY_HEADER), after.content);
      assert.equal(after.memories, undefined);
      const c = await d.call(d.routes.getConversation, `/conversations/${used.conversationId}`, { browser: carol.browser }, { id: used.conversationId });
      assert.deepEqual((c.json as AppConversationWithMessages).messages.find((m) => m.id === used.id)?.memories, [
        { id: teal.id, content: 'My favourite colour is teal' },
      ]);
    });

    test('the token budget: only the newest memories that fit; a budget of 0 leaves them all out', async () => {
      const dave = await d.newUser();
      for (let i = 1; i <= 30; i++) await remember(dave, `Fact number ${i} is about the ${'very '.repeat(10)}long story ${i}`);
      const app = d.h.svc.config.app;
      const small = chatRoutes({ svc: d.h.svc, app: { ...app, memoryTokens: 120 } });
      const none = chatRoutes({ svc: d.h.svc, app: { ...app, memoryTokens: 0 } });
      try {
        const answer = await ask(dave, 'hi [[echo_request]]', {}, { ...d.routes, ...small });
        const system = systemOf(answer);
        const block = system.slice(system.indexOf(MEMORY_HEADER));
        assert.ok(system.includes(MEMORY_HEADER));
        assert.ok(Math.ceil(Buffer.byteLength(block) / 3) <= 120, block);
        const kept = answer.memories?.map((m) => m.content) ?? [];
        assert.ok(kept.length >= 1 && kept.length < 30, `${kept.length} memories`);
        assert.match(kept.at(-1) ?? '', /^Fact number 30 /);
        const full = await ask(dave, 'hi [[echo_request]]');
        assert.ok((full.memories?.length ?? 0) > kept.length);
        const zero = await ask(dave, 'hi [[echo_request]]', {}, { ...d.routes, ...none });
        assert.equal(zero.memories, undefined);
        assert.ok(!zero.content.includes(MEMORY_HEADER));
      } finally {
        await small.close();
        await none.close();
      }
    });

    test(`at most ${MAX_MEMORIES} memories a user`, async () => {
      const erin = await d.newUser();
      await Promise.all(Array.from({ length: MAX_MEMORIES }, (_, i) => create(erin, { content: `m${i}` })));
      assert.equal((await list(erin)).items.length, MAX_MEMORIES);
      const over = await create(erin, { content: 'one too many' });
      assert.equal(over.status, 400);
      assert.match(over.json.error, /at most 200 memories/);
    });
  });
