// Knowledge without the HTTP layer: the chunker, rank fusion, and on both stores the indexer (the worker thread's
// extraction, passages stored with their progress), full-text search scoped to its user, and deletes that take the
// passages and their full-text entries with them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BACKENDS, freshStore } from '../../e2e/support/stores.ts';
import type { Store } from '../db/store.ts';
import { signUp } from '../users/users.ts';
import { chunkText } from './chunk.ts';
import { queryTerms, reciprocalRankFusion } from './fuse.ts';
import { KnowledgeService } from './service.ts';

const dataUrl = (text: string, type = 'text/plain') => `data:${type};base64,${Buffer.from(text).toString('base64')}`;

describe('chunkText', () => {
  test('cuts at paragraph and sentence ends, overlapping, and loses no text', () => {
    const paragraphs = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} says something about topic ${i}. It has a second sentence too.`);
    const text = paragraphs.join('\n\n');
    const chunks = chunkText(text, { target: 300, overlap: 60 });
    assert.ok(chunks.length > 5);
    for (const c of chunks) assert.ok(c.length <= 300 * 1.25, `${c.length}`);
    // Every paragraph is whole in some passage, and passages end at a sentence's end.
    for (const p of paragraphs)
      assert.ok(
        chunks.some((c) => c.includes(p)),
        p,
      );
    for (const c of chunks.slice(0, -1)) assert.match(c, /[.!?]$/);
  });

  test('a short text is one passage; whitespace-only is none; a text without spaces is still cut', () => {
    assert.deepEqual(chunkText('  One  short\t\ttext. '), ['One short text.']);
    assert.deepEqual(chunkText(' \n\n '), []);
    const long = 'x'.repeat(5000);
    const chunks = chunkText(long, { target: 1000 });
    assert.ok(chunks.length >= 5);
    assert.equal(chunks.join('').length >= 5000, true);
  });
});

describe('fusion', () => {
  test('query terms drop stop words and symbols; reciprocal rank fusion rewards agreement', () => {
    assert.deepEqual(queryTerms('What is the "depth" of the lagoon? (in metres) OR NOT *'), ['depth', 'lagoon', 'metres']);
    const fused = reciprocalRankFusion(['a', 'b', 'c'], ['c', 'd', 'a']);
    assert.deepEqual(
      fused.map((f) => f.id),
      ['a', 'c', 'b', 'd'],
    );
    assert.deepEqual(fused[0], { id: 'a', score: 1 / 61 + 1 / 63, lexicalRank: 1, vectorRank: 3 });
    assert.equal(fused.find((f) => f.id === 'd')?.lexicalRank, null);
  });
});

for (const backend of BACKENDS)
  describe(`knowledge store and indexer (${backend})`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    let k: KnowledgeService;
    let alice: string;
    let bob: string;

    before(async () => {
      ({ store, dispose } = await freshStore(backend));
      k = new KnowledgeService({ store, maxUserBytes: 4096 });
      alice = (await signUp(store, { email: `alice-${backend}@example.test`, password: 'correct horse battery staple' })).user.id;
      bob = (await signUp(store, { email: `bob-${backend}@example.test`, password: 'correct horse battery staple' })).user.id;
    });
    after(async () => {
      await k.stop();
      await dispose();
    });

    test('a file is indexed off the event loop, searched by its words (stemmed), and only by its owner', async () => {
      const c = await k.of(alice).create('Islands');
      const body = [
        'Atolls are ring-shaped coral reefs that enclose a lagoon.',
        'The lagoon of this atoll is about three metres deep at low tide.',
        ...Array.from({ length: 30 }, (_, i) => `Filler paragraph ${i} about weather, boats and fishing nets.`),
        'Coconut crabs climb the palms at night.',
      ].join('\n\n');
      const f = await k.upload(alice, c.id, { name: 'atoll.md', type: 'text/markdown', dataUrl: dataUrl(body, 'text/markdown') });
      assert.equal(f.status, 'queued');
      assert.equal(await k.drain(), 1);
      const [ready] = await k.of(alice).files(c.id);
      assert.equal(ready.status, 'ready', JSON.stringify(ready));
      assert.ok(ready.chunks >= 2);
      assert.equal(ready.chunksDone, ready.chunks);
      assert.equal(ready.embeddingModel, null);
      assert.match(ready.note ?? '', /full-text search only/);
      assert.equal((await store.get<{ source: string | null }>('SELECT source FROM knowledge_files WHERE id = $1', [f.id]))?.source, null);

      const found = await k.search(alice, [c.id], 'How deep is the lagoon?');
      assert.equal(found.mode, 'lexical');
      assert.match(found.hits[0].text, /three metres deep/);
      assert.equal(found.hits[0].fileName, 'atoll.md');
      assert.equal(found.hits[0].lexicalRank, 1);
      // Stemming: "climbing" finds "climb".
      assert.match((await k.search(alice, [c.id], 'crabs climbing')).hits[0].text, /Coconut crabs climb/);
      // Bob names Alice's collection: nothing.
      assert.deepEqual((await k.search(bob, [c.id], 'lagoon')).hits, []);
      // Query syntax is never the user's: quotes, operators and stars are words or nothing.
      assert.deepEqual((await k.search(alice, [c.id], '" OR * NEAR( )')).hits, []);
    });

    test('a file that cannot be read fails with the reason; deleting files and collections takes their passages', async () => {
      const c = await k.of(alice).create('Mixed');
      await k.upload(alice, c.id, { name: 'blank.txt', dataUrl: dataUrl('   \n  ') });
      await k.upload(alice, c.id, { name: 'broken.pdf', dataUrl: dataUrl('%PDF-1.7\nnot really a pdf', 'application/pdf') });
      const good = await k.upload(alice, c.id, { name: 'reef.txt', dataUrl: dataUrl('Parrotfish graze on the reef and make white sand.') });
      await k.drain();
      const byName = Object.fromEntries((await k.of(alice).files(c.id)).map((f) => [f.name, f]));
      assert.equal(byName['blank.txt'].status, 'failed');
      assert.match(byName['blank.txt'].error ?? '', /no text/);
      assert.equal(byName['broken.pdf'].status, 'failed');
      assert.match(byName['broken.pdf'].error ?? '', /broken\.pdf/);
      assert.equal(byName['reef.txt'].status, 'ready');
      assert.equal((await k.search(alice, [c.id], 'parrotfish sand')).hits.length, 1);

      // Refused before anything is stored: an unknown type, bytes that are not their type, another user's collection.
      await assert.rejects(k.upload(alice, c.id, { name: 'x.exe', dataUrl: dataUrl('MZ') }), { code: 'UNSUPPORTED_FILE' });
      await assert.rejects(k.upload(alice, c.id, { name: 'x.pdf', dataUrl: dataUrl('hello') }), { code: 'CORRUPTED_FILE' });
      await assert.rejects(k.upload(bob, c.id, { name: 'x.txt', dataUrl: dataUrl('hello') }), { code: 'NOT_FOUND' });
      await assert.rejects(k.of(bob).removeFile(c.id, good.id), { code: 'NOT_FOUND' });
      // A user's files add up to at most the cap (4 KB here).
      await assert.rejects(k.upload(alice, c.id, { name: 'big.txt', dataUrl: dataUrl('x'.repeat(4000)) }), (e: Error) => /may take/.test(e.message));

      await k.of(alice).removeFile(c.id, good.id);
      assert.deepEqual((await k.search(alice, [c.id], 'parrotfish sand')).hits, []);
      assert.equal(Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM knowledge_chunks WHERE file_id = $1', [good.id]))?.n), 0);
      if (backend === 'sqlite') {
        // The full-text index lost the passage too (its row count, read from the index itself).
        const fts = await store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM knowledge_fts WHERE knowledge_fts MATCH 'parrotfish'`);
        assert.equal(Number(fts?.n), 0);
      }
      const other = await k.of(alice).create('Other');
      await k.upload(alice, other.id, { name: 'keep.txt', dataUrl: dataUrl('Frigatebirds steal fish from boobies.') });
      await k.drain();
      await k.of(alice).remove(other.id);
      await assert.rejects(k.of(alice).collection(other.id), { code: 'NOT_FOUND' });
      assert.equal(Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM knowledge_chunks WHERE collection_id = $1', [other.id]))?.n), 0);
    });
  });
