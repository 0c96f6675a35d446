// The knowledge app API on SQLite and PostgreSQL, with the scripted engine's embedding model in the catalogue:
// collections and uploads, indexing with progress, search fused from full-text and vector rankings (each embedding
// billed to the user through the embeddings pipeline), a chat whose knowledge setting gives the model the passages
// and whose answer cites them (file and passage), and deletes that take the passages along.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { appRequest } from '../../e2e/support/app-requests.ts';
import { EventReader } from '../../e2e/support/app-chat.ts';
import { BACKENDS, type Dash, type DashUser, startDash } from '../../e2e/support/app-dash.ts';
import { scriptedEmbeddingModel } from '../../e2e/support/harness.ts';
import type { AppKnowledgeCollectionDetail, GenerationEvent, SendMessageResponse } from '../wire.ts';

const dataUrl = (text: string, type = 'text/plain') => `data:${type};base64,${Buffer.from(text).toString('base64')}`;

const ATOLL = [
  'An atoll is a ring-shaped coral reef, island, or series of islets that encircles a lagoon.',
  'The lagoon of Aldabra is shallow: at low tide much of it drains, leaving channels about three metres deep.',
  ...Array.from({ length: 12 }, (_, i) => `Note ${i}: the supply boat calls every ${i + 2} weeks, weather allowing, with fuel and rice.`),
  'Giant tortoises outnumber people on Aldabra by tens of thousands to one.',
].join('\n\n');

for (const backend of BACKENDS)
  describe(`knowledge app API (${backend})`, () => {
    let d: Dash;
    let alice: DashUser;
    let bob: DashUser;
    let collection: string;

    before(async () => {
      d = await startDash(backend, { models: (url) => [scriptedEmbeddingModel(url, { traits: ['default'] })] });
      alice = await d.newUser(10);
      bob = await d.newUser(10);
    });
    after(() => d?.close());

    const r = () => d.routes;
    const detail = async (who: DashUser, id: string): Promise<AppKnowledgeCollectionDetail> => {
      const res = await d.call(r().knowledgeCollection, `/knowledge/${id}`, { browser: who.browser }, { id });
      assert.equal(res.status, 200, res.text);
      return res.json;
    };
    const indexed = async (who: DashUser, id: string) => {
      for (let i = 0; i < 200; i++) {
        const got = await detail(who, id);
        // The collection's counts are read in a statement of their own: wait until it too has seen the files end.
        if (got.files.every((f) => f.status === 'ready' || f.status === 'failed') && got.collection.pending === 0) return got;
        await new Promise((res) => setTimeout(res, 50));
      }
      throw new Error('indexing did not finish');
    };
    const search = (who: DashUser, body: unknown) => d.call(r().searchKnowledge, '/knowledge/search', { method: 'POST', body, browser: who.browser });
    const embeddingRows = async (who: DashUser) =>
      Number(
        (await d.h.svc.store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM usage WHERE account_id = $1 AND endpoint = '/embeddings'`, [who.user.accountId]))?.n,
      );

    test('collections: create, list, rename; bad input is a 400 and another user’s collection a 404', async () => {
      const made = await d.call(r().createKnowledgeCollection, '/knowledge', { method: 'POST', body: { name: '  Atolls  ' }, browser: alice.browser });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.json.name, 'Atolls');
      collection = made.json.id;
      const list = await d.call(r().knowledgeCollections, '/knowledge', { browser: alice.browser });
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.json.collections.map((c: { id: string }) => c.id),
        [collection],
      );
      assert.equal(list.json.embeddingModel, 'embed-model');
      assert.match(list.json.accept, /\.pdf/);
      const renamed = await d.call(
        r().renameKnowledgeCollection,
        `/knowledge/${collection}`,
        { method: 'PATCH', body: { name: 'Atolls and reefs' }, browser: alice.browser },
        { id: collection },
      );
      assert.equal(renamed.json.name, 'Atolls and reefs');

      assert.equal((await d.call(r().createKnowledgeCollection, '/knowledge', { method: 'POST', body: { name: ' ' }, browser: alice.browser })).status, 400);
      assert.equal(
        (await d.call(r().createKnowledgeCollection, '/knowledge', { method: 'POST', body: { name: 'x' }, browser: alice.browser, noCsrf: true })).status,
        403,
      );
      assert.equal((await d.call(r().knowledgeCollection, `/knowledge/${collection}`, { browser: bob.browser }, { id: collection })).status, 404);
      assert.equal((await d.call(r().knowledgeCollections, '/knowledge', { browser: bob.browser })).json.collections.length, 0);
    });

    test('upload: indexed with progress and vectors billed to the uploader; a bad file is a 400', async () => {
      const before = await embeddingRows(alice);
      const up = await d.call(
        r().uploadKnowledgeFile,
        `/knowledge/${collection}/files`,
        { method: 'POST', body: { name: 'aldabra.md', type: 'text/markdown', dataUrl: dataUrl(ATOLL, 'text/markdown') }, browser: alice.browser },
        { id: collection },
      );
      assert.equal(up.status, 201, up.text);
      assert.equal(up.json.status, 'queued');
      const got = await indexed(alice, collection);
      const [file] = got.files;
      assert.equal(file.status, 'ready', JSON.stringify(file));
      assert.ok(file.chunks >= 2, `${file.chunks}`);
      assert.equal(file.chunksDone, file.chunks);
      assert.equal(file.embeddingModel, 'embed-model');
      assert.equal(file.note, null);
      assert.equal(got.collection.chunks, file.chunks);
      assert.equal(got.collection.pending, 0);
      assert.ok((await embeddingRows(alice)) > before, 'the passages were embedded through the metered call, on the uploader');

      const bad = await d.call(
        r().uploadKnowledgeFile,
        `/knowledge/${collection}/files`,
        { method: 'POST', body: { name: 'tool.exe', dataUrl: dataUrl('MZ...') }, browser: alice.browser },
        { id: collection },
      );
      assert.equal(bad.status, 400);
      assert.equal(bad.json.error?.code ?? bad.json.code, 'UNSUPPORTED_FILE', bad.text);
      const foreign = await d.call(
        r().uploadKnowledgeFile,
        `/knowledge/${collection}/files`,
        { method: 'POST', body: { name: 'a.txt', dataUrl: dataUrl('hello') }, browser: bob.browser },
        { id: collection },
      );
      assert.equal(foreign.status, 404);
    });

    test('search: full-text and vector rankings fused; the query embedded on the asker; nothing for another user', async () => {
      const before = await embeddingRows(alice);
      const res = await search(alice, { collections: [collection], query: 'How deep is the lagoon of Aldabra?' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.mode, 'fused');
      assert.equal(res.json.embeddingModel, 'embed-model');
      const top = res.json.hits[0];
      assert.match(top.text, /three metres deep/);
      assert.equal(top.fileName, 'aldabra.md');
      assert.equal(top.lexicalRank, 1);
      assert.ok(res.json.hits.some((h: { vectorRank: number | null }) => h.vectorRank !== null));
      assert.equal(await embeddingRows(alice), before + 1);
      const theirs = await search(bob, { collections: [collection], query: 'lagoon' });
      assert.equal(theirs.status, 200);
      assert.deepEqual(theirs.json.hits, []);
      assert.equal((await search(alice, { collections: [], query: 'x' })).status, 400);
    });

    test('chat: the collection attached, the model reads the passages, the answer cites file and passage', async () => {
      const foreign = await d.call(r().createConversation, '/conversations', {
        method: 'POST',
        body: { settings: { knowledge: [collection] } },
        browser: bob.browser,
      });
      assert.equal(foreign.status, 404, 'a chat cannot name another user’s collection');
      const made = await d.call(r().createConversation, '/conversations', {
        method: 'POST',
        body: { settings: { knowledge: [collection] } },
        browser: alice.browser,
      });
      assert.equal(made.status, 201, made.text);
      assert.deepEqual(made.json.settings.knowledge, [collection]);
      const id = made.json.id;
      const sent = await d.call(
        r().sendMessage,
        `/conversations/${id}/messages`,
        { method: 'POST', body: { parentId: null, content: 'How deep is the lagoon of Aldabra? [[reply:About three metres [1].]]' }, browser: alice.browser },
        { id },
      );
      assert.equal(sent.status, 201, sent.text);
      const { assistant } = sent.json as SendMessageResponse;
      const events = await new EventReader(
        await r().streamMessage(appRequest(`/messages/${assistant.id}/stream`, { browser: alice.browser }), { id: assistant.id }),
      ).rest();
      const done = events.at(-1) as Extract<GenerationEvent, { type: 'done' }>;
      assert.equal(done.type, 'done', JSON.stringify(events));
      assert.equal(done.message.content, 'About three metres ^1^.');
      const [first] = done.message.citations;
      assert.equal(first.title, 'aldabra.md');
      assert.match(first.url, /^knowledge:/);
      assert.match(first.passage ?? '', /three metres deep/);
      // The model was given the passages, numbered as cited.
      const sentToModel = JSON.stringify(d.h.engine.requests.at(-1)?.body.messages);
      assert.match(sentToModel, /\[1\] aldabra\.md\\n[^"]*three metres deep/);
      // Stored with the answer.
      const again = await d.call(r().getConversation, `/conversations/${id}`, { browser: alice.browser }, { id });
      assert.deepEqual(again.json.messages.at(-1).citations, done.message.citations);
    });

    test('deleting a file deletes its passages; deleting the collection deletes it all', async () => {
      const [file] = (await detail(alice, collection)).files;
      const gone = await d.call(
        r().deleteKnowledgeFile,
        `/knowledge/${collection}/files/${file.id}`,
        { method: 'DELETE', browser: alice.browser },
        { id: collection, fileId: file.id },
      );
      assert.equal(gone.status, 204, gone.text);
      assert.equal(Number((await d.h.svc.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM knowledge_chunks WHERE file_id = $1', [file.id]))?.n), 0);
      assert.deepEqual((await search(alice, { collections: [collection], query: 'lagoon deep' })).json.hits, []);
      assert.equal(
        (
          await d.call(
            r().deleteKnowledgeFile,
            `/knowledge/${collection}/files/${file.id}`,
            { method: 'DELETE', browser: alice.browser },
            { id: collection, fileId: file.id },
          )
        ).status,
        404,
      );
      assert.equal(
        (await d.call(r().deleteKnowledgeCollection, `/knowledge/${collection}`, { method: 'DELETE', browser: bob.browser }, { id: collection })).status,
        404,
      );
      assert.equal(
        (await d.call(r().deleteKnowledgeCollection, `/knowledge/${collection}`, { method: 'DELETE', browser: alice.browser }, { id: collection })).status,
        204,
      );
      assert.equal((await d.call(r().knowledgeCollection, `/knowledge/${collection}`, { browser: alice.browser }, { id: collection })).status, 404);
    });
  });
