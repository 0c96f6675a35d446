// Conversations and message trees on both stores: CRUD, per-user isolation, branches, pagination, search,
// settings validation, exports and a long conversation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { freshStore } from '../../e2e/support/stores.ts';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import { exportJson, exportMarkdown, userConversations } from './conversations.ts';
import type { ConversationOps, ConversationWithMessages } from './conversations.ts';

async function addUser(store: Store, id: string): Promise<void> {
  await store.run('INSERT INTO accounts (id, name, tier, created_at) VALUES ($1, $2, $3, $4)', [`acc-${id}`, id, 'default', 1]);
  await store.run('INSERT INTO users (id, email, password_hash, account_id, created_at) VALUES ($1, $2, $3, $4, $5)', [
    id,
    `${id}@example.test`,
    'x',
    `acc-${id}`,
    1,
  ]);
}

const code = (c: string) => (e: unknown) => e instanceof ApiError && e.code === c;

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`conversations on ${backend}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let alice: ConversationOps;
    let bob: ConversationOps;

    before(async () => {
      ({ store, dispose: cleanup } = await freshStore(backend));
      await addUser(store, 'alice');
      await addUser(store, 'bob');
      alice = userConversations(store, 'alice');
      bob = userConversations(store, 'bob');
    });
    after(() => cleanup());

    test('create, get, rename, remove', async () => {
      const c = await alice.create({ modelId: 'llama-3', characterSlug: 'pirate', settings: { temperature: 0.7 } });
      assert.equal(c.title, 'New chat');
      assert.equal(c.modelId, 'llama-3');
      assert.equal(c.characterSlug, 'pirate');
      assert.deepEqual(c.settings, { temperature: 0.7 });
      assert.equal(typeof c.createdAt, 'number');

      const got = await alice.get(c.id);
      assert.deepEqual(got, { ...c, messages: [] });

      const renamed = await alice.rename(c.id, '  Trip\u0007 to\n\tLisbon  ');
      assert.equal(renamed.title, 'Trip to Lisbon');
      assert.ok(renamed.updatedAt > c.updatedAt);
      await assert.rejects(alice.rename(c.id, ' \u0000 '), code('INVALID_REQUEST'));
      await assert.rejects(alice.rename(c.id, 'x'.repeat(201)), code('INVALID_REQUEST'));
      assert.equal((await alice.rename(c.id, 'y'.repeat(200))).title.length, 200);
      await assert.rejects(alice.create({ title: '' }), code('INVALID_REQUEST'));
      await assert.rejects(alice.create({ bogus: 1 } as never), code('INVALID_REQUEST'));
      assert.equal((await alice.create({ title: ' Named ' })).title, 'Named');

      const u = await alice.addMessage(c.id, { parentId: null, role: 'user', content: 'hi' });
      await alice.addMessage(c.id, { parentId: u.id, role: 'assistant', content: 'hello' });
      await alice.remove(c.id);
      await assert.rejects(alice.get(c.id), code('NOT_FOUND'));
      await assert.rejects(alice.remove(c.id), code('NOT_FOUND'));
      const left = await store.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM messages WHERE conversation_id = $1', [c.id]);
      assert.equal(Number(left?.n), 0);
    });

    test('another user cannot see or touch a conversation', async () => {
      const c = await alice.create({ title: 'Secret plans' });
      const m = await alice.addMessage(c.id, { parentId: null, role: 'user', content: 'the secret word is zebra' });
      const a = await alice.addMessage(c.id, { parentId: m.id, role: 'assistant', content: 'noted', status: 'streaming' });

      await assert.rejects(bob.get(c.id), code('NOT_FOUND'));
      await assert.rejects(bob.withPath(c.id), code('NOT_FOUND'));
      await assert.rejects(bob.rename(c.id, 'mine now'), code('NOT_FOUND'));
      await assert.rejects(bob.remove(c.id), code('NOT_FOUND'));
      await assert.rejects(bob.updateSettings(c.id, { temperature: 1 }), code('NOT_FOUND'));
      await assert.rejects(bob.addMessage(c.id, { parentId: null, role: 'user', content: 'x' }), code('NOT_FOUND'));
      await assert.rejects(bob.addMessage(c.id, { parentId: m.id, role: 'user', content: 'x' }), code('NOT_FOUND'));
      await assert.rejects(bob.path(c.id), code('NOT_FOUND'));
      await assert.rejects(bob.siblings(m.id), code('NOT_FOUND'));
      await assert.rejects(bob.branchLeaf(m.id), code('NOT_FOUND'));
      await assert.rejects(bob.updateMessage(a.id, { content: 'hijack' }), code('NOT_FOUND'));

      // Bob's own conversation cannot adopt Alice's message as a parent.
      const mine = await bob.create();
      await assert.rejects(bob.addMessage(mine.id, { parentId: m.id, role: 'user', content: 'x' }), code('INVALID_REQUEST'));
      await assert.rejects(bob.path(mine.id, m.id), code('NOT_FOUND'));

      assert.ok((await bob.list({ limit: 200 })).items.every((x) => x.id !== c.id));
      assert.deepEqual(await bob.search('zebra'), []);
      assert.deepEqual(await bob.search('Secret plans'), []);

      // Nothing changed for Alice.
      const still = await alice.get(c.id);
      assert.equal(still.title, 'Secret plans');
      assert.deepEqual(
        still.messages.map((x) => x.content),
        ['the secret word is zebra', 'noted'],
      );
      assert.equal((await alice.search('zebra'))[0].conversation.id, c.id);
    });

    test('a turn: both messages, the title and the model in one write, as the stored conversation says', async () => {
      const c = await alice.create();
      const turn = await alice.addTurn(c.id, {
        user: { parentId: null, role: 'user', content: 'Plan a trip' },
        assistant: { role: 'assistant', content: '', status: 'streaming', modelId: 'm1' },
        title: '  Plan\n a trip ',
        modelId: 'm1',
      });
      assert.equal(turn.assistant.parentId, turn.user.id);
      assert.ok(turn.assistant.createdAt > turn.user.createdAt);
      assert.deepEqual(turn.conversation, await alice.conversation(c.id));
      assert.equal(turn.conversation.title, 'Plan a trip');
      assert.equal(turn.conversation.modelId, 'm1');
      assert.deepEqual(
        (await alice.get(c.id)).messages.map((m) => [m.role, m.status]),
        [
          ['user', 'complete'],
          ['assistant', 'streaming'],
        ],
      );
      // Without a title or model the chat only moves forward; a parent from elsewhere or another user's chat stores nothing.
      const next = await alice.addTurn(c.id, {
        user: { parentId: turn.assistant.id, role: 'user', content: 'More' },
        assistant: { role: 'assistant', content: 'ok' },
      });
      assert.equal(next.conversation.title, 'Plan a trip');
      assert.deepEqual(next.conversation, await alice.conversation(c.id));
      const other = await alice.create();
      await assert.rejects(
        alice.addTurn(other.id, { user: { parentId: turn.user.id, role: 'user', content: 'x' }, assistant: { role: 'assistant', content: '' } }),
        code('INVALID_REQUEST'),
      );
      await assert.rejects(
        bob.addTurn(c.id, { user: { parentId: null, role: 'user', content: 'x' }, assistant: { role: 'assistant', content: '' } }),
        code('NOT_FOUND'),
      );
      assert.equal((await alice.get(c.id)).messages.length, 4);
      assert.equal((await alice.get(other.id)).messages.length, 0);
    });

    test('edit-and-resend keeps the earlier branch', async () => {
      const c = await alice.create();
      const u1 = await alice.addMessage(c.id, { parentId: null, role: 'user', content: 'What is 2+2?' });
      const a1 = await alice.addMessage(c.id, { parentId: u1.id, role: 'assistant', content: '4', modelId: 'm1' });
      const u2 = await alice.addMessage(c.id, { parentId: a1.id, role: 'user', content: 'And 3+3?' });
      const a2 = await alice.addMessage(c.id, { parentId: u2.id, role: 'assistant', content: '6' });
      // Edit the second question: a sibling of u2 with its own answer.
      const u2b = await alice.addMessage(c.id, { parentId: a1.id, role: 'user', content: 'And 5+5?' });
      const a2b = await alice.addMessage(c.id, { parentId: u2b.id, role: 'assistant', content: '10' });

      assert.deepEqual(
        (await alice.path(c.id)).map((m) => m.content),
        ['What is 2+2?', '4', 'And 5+5?', '10'],
      );
      assert.deepEqual(
        (await alice.path(c.id, a2.id)).map((m) => m.id),
        [u1.id, a1.id, u2.id, a2.id],
      );
      assert.deepEqual(
        (await alice.path(c.id, u2.id)).map((m) => m.id),
        [u1.id, a1.id, u2.id],
      );
      await assert.rejects(alice.path(c.id, 'no-such-message'), code('NOT_FOUND'));

      assert.deepEqual(await alice.siblings(u2.id), { ids: [u2.id, u2b.id], index: 0 });
      assert.deepEqual(await alice.siblings(u2b.id), { ids: [u2.id, u2b.id], index: 1 });
      assert.deepEqual(await alice.siblings(u1.id), { ids: [u1.id], index: 0 });
      assert.deepEqual(await alice.siblings(a2.id), { ids: [a2.id], index: 0 });

      assert.equal((await alice.branchLeaf(u2.id)).id, a2.id);
      assert.equal((await alice.branchLeaf(u2b.id)).id, a2b.id);
      assert.equal((await alice.branchLeaf(u1.id)).id, a2b.id);
      assert.equal((await alice.branchLeaf(a2.id)).id, a2.id);

      // Regenerate: a second answer to u2 becomes the latest leaf; the old branch keeps working.
      const a2c = await alice.addMessage(c.id, { parentId: u2.id, role: 'assistant', content: 'six' });
      assert.deepEqual(await alice.siblings(a2c.id), { ids: [a2.id, a2c.id], index: 1 });
      assert.equal((await alice.branchLeaf(u2.id)).id, a2c.id);
      assert.deepEqual(
        (await alice.path(c.id)).map((m) => m.content),
        ['What is 2+2?', '4', 'And 3+3?', 'six'],
      );

      const all = await alice.get(c.id);
      assert.equal(all.messages.length, 7);
      assert.deepEqual(
        all.messages.map((m) => m.id),
        [u1.id, a1.id, u2.id, a2.id, u2b.id, a2b.id, a2c.id],
      );
      assert.ok(all.messages.every((m, i) => i === 0 || m.createdAt > all.messages[i - 1].createdAt));
      assert.ok(all.updatedAt >= a2c.createdAt);

      // A parent in another conversation is refused.
      const other = await alice.create();
      await assert.rejects(alice.addMessage(other.id, { parentId: u1.id, role: 'user', content: 'x' }), code('INVALID_REQUEST'));
      await assert.rejects(alice.addMessage(c.id, { parentId: null, role: 'tool' as never, content: 'x' }), code('INVALID_REQUEST'));
      await assert.rejects(alice.addMessage('nope', { parentId: null, role: 'user', content: 'x' }), code('NOT_FOUND'));
    });

    test('a streaming assistant message is updated in place', async () => {
      const c = await alice.create();
      const u = await alice.addMessage(c.id, { parentId: null, role: 'user', content: 'Tell me', attachments: [{ name: 'a.pdf', size: 3 }] });
      const a = await alice.addMessage(c.id, { parentId: u.id, role: 'assistant', content: '', status: 'streaming', modelId: 'm1' });
      assert.equal(a.status, 'streaming');
      const before = (await alice.get(c.id)).updatedAt;
      const done = await alice.updateMessage(a.id, {
        content: 'The answer [1].',
        reasoning: 'thinking…',
        status: 'complete',
        usage: { promptTokens: 5, completionTokens: 4 },
        citations: [{ url: 'https://example.org/a', title: 'A', date: '2025-01-01' }],
      });
      assert.equal(done.content, 'The answer [1].');
      assert.equal(done.reasoning, 'thinking…');
      assert.equal(done.status, 'complete');
      assert.deepEqual(done.usage, { promptTokens: 5, completionTokens: 4 });
      assert.deepEqual(done.citations, [{ url: 'https://example.org/a', title: 'A', date: '2025-01-01' }]);
      assert.equal(done.modelId, 'm1');
      assert.ok((await alice.get(c.id)).updatedAt > before);
      assert.deepEqual((await alice.get(c.id)).messages[0].attachments, [{ name: 'a.pdf', size: 3 }]);

      const stopped = await alice.updateMessage(a.id, { status: 'stopped' });
      assert.equal(stopped.content, 'The answer [1].');
      assert.equal(stopped.status, 'stopped');
      await assert.rejects(alice.updateMessage(a.id, {}), code('INVALID_REQUEST'));
      await assert.rejects(alice.updateMessage(a.id, { status: 'done' as never }), code('INVALID_REQUEST'));
      await assert.rejects(alice.updateMessage(u.id, { content: 'rewrite' }), code('INVALID_REQUEST'));
      await assert.rejects(alice.updateMessage('missing', { content: 'x' }), code('NOT_FOUND'));
    });

    test('errors, updated_at, conditional updates, single messages and the model', async () => {
      const c = await alice.create();
      const u = await alice.addMessage(c.id, { parentId: null, role: 'user', content: 'Hi' });
      const a = await alice.addMessage(c.id, { parentId: u.id, role: 'assistant', content: '', status: 'streaming' });
      assert.equal(a.error, null);
      assert.equal(a.updatedAt, a.createdAt);
      assert.deepEqual(await alice.message(a.id), a);
      await assert.rejects(bob.message(a.id), code('NOT_FOUND'));

      // A quiet progress write moves the message's updated_at but not the conversation's.
      const convBefore = (await alice.get(c.id)).updatedAt;
      const progress = await alice.updateMessage(a.id, { content: 'par' }, { ifStatus: 'streaming', quiet: true });
      assert.equal(progress?.content, 'par');
      assert.ok((progress?.updatedAt ?? 0) > (a.updatedAt ?? 0));
      assert.equal((await alice.get(c.id)).updatedAt, convBefore);

      const err = { code: 'INSUFFICIENT_BALANCE', status: 402, message: 'No credit' };
      const failed = await alice.updateMessage(a.id, { status: 'error', error: err });
      assert.deepEqual(failed.error, err);
      assert.deepEqual((await alice.get(c.id)).messages[1].error, err);
      // The row is no longer streaming: a conditional write is skipped, not an error.
      assert.equal(await alice.updateMessage(a.id, { content: 'late' }, { ifStatus: 'streaming' }), undefined);
      assert.equal((await alice.message(a.id)).content, 'par');
      await assert.rejects(alice.updateMessage(a.id, { error: { code: 'X', status: 'bad' as never, message: '' } }), code('INVALID_REQUEST'));
      assert.deepEqual((await alice.updateMessage(a.id, { error: null, status: 'complete' })).error, null);
      await assert.rejects(bob.updateMessage(a.id, { content: 'x' }, { ifStatus: 'complete' }), code('NOT_FOUND'));

      assert.equal((await alice.updateMessage(a.id, { modelId: 'answering-model' })).modelId, 'answering-model');
      assert.equal((await alice.conversation(c.id)).id, c.id);
      await assert.rejects(bob.conversation(c.id), code('NOT_FOUND'));
      assert.equal((await alice.setModel(c.id, 'vision-model')).modelId, 'vision-model');
      assert.equal((await alice.setModel(c.id, null)).modelId, null);
      await assert.rejects(alice.setModel(c.id, ''), code('INVALID_REQUEST'));
      await assert.rejects(bob.setModel(c.id, 'x'), code('NOT_FOUND'));
    });

    test('list pages newest-updated first with a cursor', async () => {
      const carol = userConversations(store, 'carol');
      await addUser(store, 'carol');
      const made = [];
      for (let i = 0; i < 7; i++) made.push(await carol.create({ title: `c${i}` }));
      // Touching c2 moves it to the top.
      await carol.addMessage(made[2].id, { parentId: null, role: 'user', content: 'bump' });
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: Awaited<ReturnType<ConversationOps['list']>> = await carol.list({ limit: 3, cursor });
        assert.ok(page.items.length <= 3);
        seen.push(...page.items.map((x) => x.title));
        cursor = page.nextCursor;
        pages++;
      } while (cursor);
      assert.equal(pages, 3);
      assert.deepEqual(seen, ['c2', 'c6', 'c5', 'c4', 'c3', 'c1', 'c0']);
      assert.equal((await carol.list()).items.length, 7);
      assert.equal((await carol.list()).nextCursor, null);
      await assert.rejects(carol.list({ cursor: 'garbage!' }), code('INVALID_REQUEST'));
      await assert.rejects(carol.list({ limit: 0 }), code('INVALID_REQUEST'));
    });

    test('search matches titles and message text, case-insensitively, with wildcards escaped', async () => {
      await addUser(store, 'dave');
      const dave = userConversations(store, 'dave');
      const t = await dave.create({ title: 'Budget for Q3' });
      const m = await dave.create({ title: 'Misc' });
      await dave.addMessage(m.id, { parentId: null, role: 'user', content: `${'filler '.repeat(20)}We got 50% off the BUDGET hotel ${'tail '.repeat(20)}` });
      const u = await dave.create({ title: 'snake_case names' });
      await dave.addMessage(u.id, { parentId: null, role: 'user', content: 'plain words only' });

      const budget = await dave.search('budget');
      assert.deepEqual(budget.map((h) => h.conversation.id).sort(), [t.id, m.id].sort());
      const hit = budget.find((h) => h.conversation.id === m.id);
      assert.ok(hit?.messageId);
      assert.match(hit.snippet, /^….*50% off the BUDGET hotel.*…$/);
      assert.ok(hit.snippet.length < 160);
      const titleHit = budget.find((h) => h.conversation.id === t.id);
      assert.equal(titleHit?.messageId, null);
      assert.equal(titleHit?.snippet, 'Budget for Q3');

      assert.deepEqual(
        (await dave.search('50%')).map((h) => h.conversation.id),
        [m.id],
      );
      assert.deepEqual(await dave.search('5%f'), []); // % is literal, not a wildcard
      assert.deepEqual(
        (await dave.search('snake_case')).map((h) => h.conversation.id),
        [u.id],
      );
      assert.deepEqual(await dave.search('snakeXcase'), []);
      assert.deepEqual(await dave.search('e_c'.replace('_', '\\')), []);
      assert.deepEqual(await dave.search('nothing like this'), []);
      assert.equal((await dave.search('e', { limit: 2 })).length, 2);
      await assert.rejects(dave.search('   '), code('INVALID_REQUEST'));
    });

    test('updateSettings validates and merges', async () => {
      const c = await alice.create({ settings: { webSearch: 'auto', temperature: 1 } });
      const s = await alice.updateSettings(c.id, { systemPrompt: 'Be brief.', citations: true, temperature: null });
      assert.deepEqual(s.settings, { webSearch: 'auto', systemPrompt: 'Be brief.', citations: true });
      assert.deepEqual((await alice.get(c.id)).settings, s.settings);
      const s2 = await alice.updateSettings(c.id, { includeServiceSystemPrompt: false, webSearch: 'off', temperature: 0 });
      assert.deepEqual(s2.settings, { webSearch: 'off', systemPrompt: 'Be brief.', citations: true, includeServiceSystemPrompt: false, temperature: 0 });

      for (const bad of [
        { temperature: 2.1 },
        { temperature: -0.1 },
        { temperature: '1' },
        { webSearch: 'sometimes' },
        { citations: 'yes' },
        { includeServiceSystemPrompt: 1 },
        { systemPrompt: 'x'.repeat(20_001) },
        { unknownKey: true },
      ]) {
        await assert.rejects(alice.updateSettings(c.id, bad as never), code('INVALID_REQUEST'), JSON.stringify(bad).slice(0, 60));
      }
      assert.equal((await alice.updateSettings(c.id, { systemPrompt: 'x'.repeat(20_000) })).settings.systemPrompt?.length, 20_000);
      await assert.rejects(alice.create({ settings: { temperature: 3 } }), code('INVALID_REQUEST'));
      await assert.rejects(alice.updateSettings('missing', {}), code('NOT_FOUND'));
    });

    test('exports the current path as Markdown and JSON', async () => {
      const c = await alice.create({ title: 'Export me', modelId: 'llama-3' });
      const u1 = await alice.addMessage(c.id, { parentId: null, role: 'user', content: 'Old question' });
      const u = await alice.addMessage(c.id, { parentId: null, role: 'user', content: 'What is [the] answer?' });
      await alice.addMessage(c.id, {
        parentId: u.id,
        role: 'assistant',
        content: 'It is 42 [1].',
        reasoning: 'Recall the book.',
        modelId: 'llama-3',
        citations: [{ url: 'https://example.org/h2g2 (book)', title: 'The [Guide]', date: '1979-10-12' }, { url: 'https://b.example/' }],
        usage: { totalTokens: 9 },
      });
      const view = await alice.withPath(c.id);
      assert.ok(!view.messages.some((m) => m.id === u1.id));
      // Fixed timestamps and ids for golden comparisons.
      const fixed: ConversationWithMessages = {
        ...view,
        id: 'conv-1',
        createdAt: Date.UTC(2025, 0, 2, 3, 4, 5),
        messages: view.messages.map((m, i) => ({ ...m, id: `msg-${i}`, parentId: i ? `msg-${i - 1}` : null, createdAt: Date.UTC(2025, 0, 2, 3, 4, 6 + i) })),
      };
      assert.equal(
        exportMarkdown(fixed),
        [
          '# Export me',
          '',
          '_Exported from Lagoon · created 2025-01-02T03:04:05.000Z · model llama-3_',
          '',
          '## User',
          '',
          'What is [the] answer?',
          '',
          '## Assistant (llama-3)',
          '',
          '<details>',
          '<summary>Reasoning</summary>',
          '',
          'Recall the book.',
          '',
          '</details>',
          '',
          'It is 42 [1].',
          '',
          '**Sources**',
          '',
          '1. [The \\[Guide\\]](https://example.org/h2g2%20%28book%29) — 1979-10-12',
          '2. [https://b.example/](https://b.example/)',
          '',
        ].join('\n'),
      );
      const doc = exportJson(fixed);
      assert.ok(doc.endsWith('}\n'));
      assert.deepEqual(JSON.parse(doc), {
        id: 'conv-1',
        title: 'Export me',
        createdAt: '2025-01-02T03:04:05.000Z',
        model: 'llama-3',
        messages: [
          {
            id: 'msg-0',
            parentId: null,
            role: 'user',
            content: 'What is [the] answer?',
            reasoning: null,
            model: null,
            status: 'complete',
            createdAt: '2025-01-02T03:04:06.000Z',
            attachments: [],
            citations: [],
            usage: null,
          },
          {
            id: 'msg-1',
            parentId: 'msg-0',
            role: 'assistant',
            content: 'It is 42 [1].',
            reasoning: 'Recall the book.',
            model: 'llama-3',
            status: 'complete',
            createdAt: '2025-01-02T03:04:07.000Z',
            attachments: [],
            citations: [{ url: 'https://example.org/h2g2 (book)', title: 'The [Guide]', date: '1979-10-12' }, { url: 'https://b.example/' }],
            usage: { totalTokens: 9 },
          },
        ],
      });
      assert.deepEqual(Object.keys(JSON.parse(doc)), ['id', 'title', 'createdAt', 'model', 'messages']);
      assert.equal(exportJson(fixed), doc); // stable
    });

    test('a 1,000-message conversation loads its path', async () => {
      const c = await alice.create();
      let parent: string | null = null;
      for (let i = 0; i < 1000; i++) {
        const m: { id: string } = await alice.addMessage(c.id, { parentId: parent, role: i % 2 ? 'assistant' : 'user', content: `message ${i}` });
        parent = m.id;
      }
      const p = await alice.path(c.id);
      assert.equal(p.length, 1000);
      assert.equal(p[0].content, 'message 0');
      assert.equal(p[999].content, 'message 999');
      assert.equal(p[999].id, parent);
      assert.equal((await alice.get(c.id)).messages.length, 1000);
    });
  });
}
