// Reading other apps' chat exports: a ChatGPT tree with an edited first message keeps both branches, drops hidden
// system context, tool messages and an image part (counted), moves a dropped message's children up to its kept
// ancestor; Open WebUI's history tree and LibreChat's flat list and tree read the same way; other files say why not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatgptExport } from '../../e2e/support/imports/chatgpt.ts';
import { parseImport } from './import-parse.ts';

const LIMITS = { maxChats: 100, maxMessages: 1000 };

test('a ChatGPT export: every branch, parents first, what was dropped counted', () => {
  const r = parseImport(JSON.stringify(chatgptExport()), LIMITS);
  assert.equal(r.source, 'chatgpt');
  assert.deepEqual(r.skipped, [{ title: 'Empty', reason: 'no messages with text' }]);
  const [chat] = r.chats;
  assert.equal(chat.title, 'Tide pools');
  assert.equal(chat.createdAt, 1_700_000_000_000);
  assert.deepEqual(
    chat.messages.map((m) => [m.key, m.parentKey, m.role]),
    [
      ['u1', null, 'user'],
      ['u1b', null, 'user'],
      ['a1', 'u1', 'assistant'],
      ['u2', 'a1', 'user'],
      ['a2', 'u1b', 'assistant'],
    ],
    'the tool message is gone and its child hangs from the answer before it; the branch on screen (a2) comes last',
  );
  assert.equal(chat.messages.find((m) => m.key === 'u2')?.content, 'And this one?');
  assert.equal(r.dropped, 3, 'the hidden system message, the tool message and the image part');
});

test('Open WebUI and LibreChat exports', () => {
  const webui = [
    {
      title: 'Kelp',
      created_at: 1_700_000_000,
      updated_at: 1_700_000_100,
      chat: {
        history: {
          currentId: 'b',
          messages: {
            q: { id: 'q', parentId: null, role: 'user', content: 'Is kelp a plant?', timestamp: 1_700_000_001 },
            a: { id: 'a', parentId: 'q', role: 'assistant', content: 'An alga.', timestamp: 1_700_000_002 },
            b: { id: 'b', parentId: 'q', role: 'assistant', content: 'A brown alga.', timestamp: 1_700_000_003 },
          },
        },
      },
    },
  ];
  const w = parseImport(JSON.stringify(webui), LIMITS);
  assert.equal(w.source, 'open-webui');
  assert.deepEqual(
    w.chats[0].messages.map((m) => [m.key, m.parentKey]),
    [
      ['q', null],
      ['a', 'q'],
      ['b', 'q'],
    ],
  );
  const libre = {
    conversationId: 'c1',
    title: 'Reefs',
    messages: [
      { messageId: 'm1', parentMessageId: '00000000-0000-0000-0000-000000000000', isCreatedByUser: true, text: 'Why are reefs colourful?' },
      { messageId: 'm2', parentMessageId: 'm1', isCreatedByUser: false, text: 'Algae living in the coral.' },
    ],
  };
  const l = parseImport(JSON.stringify(libre), LIMITS);
  assert.equal(l.source, 'librechat');
  assert.deepEqual(
    l.chats[0].messages.map((m) => [m.role, m.parentKey]),
    [
      ['user', null],
      ['assistant', 'm1'],
    ],
  );
  const tree = parseImport(JSON.stringify({ ...libre, messages: undefined, messagesTree: [{ ...libre.messages[0], children: [libre.messages[1]] }] }), LIMITS);
  assert.equal(tree.chats[0].messages.length, 2);
});

test('a file that is not an export says so; limits are kept', () => {
  assert.throws(() => parseImport('not json', LIMITS), /not JSON/);
  assert.throws(() => parseImport('{"hello": 1}', LIMITS), /not a ChatGPT, Open WebUI, LibreChat or Lagoon export/);
  const many = Array.from({ length: 3 }, () => chatgptExport()[0]);
  const r = parseImport(JSON.stringify(many), { maxChats: 2, maxMessages: 1000 });
  assert.equal(r.chats.length, 2);
  assert.equal(r.skipped[0].reason, 'only 2 chats are taken from one file');
});
