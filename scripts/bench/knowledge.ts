#!/usr/bin/env node
// Benchmark: knowledge retrieval (lib/knowledge), on SQLite and PostgreSQL, through the service itself (its indexer,
// its worker thread, the embeddings pipeline with the catalogue's demo embedding model, billed like any user's):
//   1. quality: the labelled set (knowledge-set.ts: clauses of the US Constitution, public domain, and questions in
//      plain words), one passage a file; recall@5 of the full-text ranking, of the vector ranking and of the two
//      fused (reciprocal rank fusion), and the mean reciprocal rank of the fused one. The demo embedding model has
//      random weights: its vectors carry no meaning, so its recall is what chance and shared bytes give.
//   2. scale: BENCH_CHUNKS passages (default 10,000) in 100 files of generated text from the set's words, indexed
//      with their vectors: pages/s (a page taken as 3,000 characters) from the first upload to the last file ready;
//      then the latency of a search (fused: the query embedded, full-text and vector rankings, fusion) over them,
//      and the same files indexed again for full-text search only.
// Last line: `bench-knowledge: <store>_recall5_lexical=… …` for each store.
import { randomBytes } from 'node:crypto';
import { grantUsd } from '../../lib/billing/ledger.ts';
import { toMicros } from '../../lib/billing/money.ts';
import { chunkText } from '../../lib/knowledge/chunk.ts';
import { queryTerms } from '../../lib/knowledge/fuse.ts';
import { KnowledgeService } from '../../lib/knowledge/service.ts';
import { signUp } from '../../lib/users/users.ts';
import { catalogueModel, startHarness } from '../../e2e/support/harness.ts';
import { createTestDatabase } from '../../e2e/support/pg.ts';
import { PASSAGES, QUERIES } from './knowledge-set.ts';

const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 10_000);
const FILES = 100;
const PAGE_CHARS = 3000;
const STORES = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',');
const dataUrl = (text: string) => `data:text/plain;base64,${Buffer.from(text).toString('base64')}`;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const f = (n: number, d = 1) => n.toFixed(d);

/** A deterministic generator (mulberry32), so every run indexes the same text. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Files of sentences re-cut from the set's words, with numbers, until their passages reach `chunks`. */
function corpus(chunks: number): string[] {
  const words = PASSAGES.flatMap((p) => p.text.split(/\s+/));
  const rand = rng(42);
  const sentence = () => {
    const n = 8 + Math.floor(rand() * 20);
    const w = Array.from({ length: n }, () => words[Math.floor(rand() * words.length)].replace(/[.;:,]$/, ''));
    if (rand() < 0.3) w.splice(Math.floor(rand() * n), 0, String(Math.floor(rand() * 10_000)));
    return `${w.join(' ')}.`;
  };
  const files: string[][] = Array.from({ length: FILES }, () => []);
  const sizes = new Array(FILES).fill(0);
  let total = 0;
  // Paragraphs of a few sentences, spread over the files in turn, until the passage count is reached.
  for (let turn = 0; total < chunks; turn++) {
    const i = turn % FILES;
    const before = sizes[i];
    for (let k = 0; k < 30; k++) files[i].push(Array.from({ length: 3 + Math.floor(rand() * 4) }, sentence).join(' '));
    sizes[i] = chunkText(files[i].join('\n\n')).length;
    total += sizes[i] - before;
  }
  return files.map((p) => p.join('\n\n')).filter((t) => t.length > 0);
}

async function waitReady(k: KnowledgeService, userId: string, collection: string): Promise<void> {
  for (;;) {
    const files = await k.of(userId).files(collection);
    const failed = files.find((x) => x.status === 'failed');
    if (failed) throw new Error(`${failed.name} failed: ${failed.error}`);
    if (files.every((x) => x.status === 'ready')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const summary: string[] = [];

for (const store of STORES) {
  const pg = store === 'postgres' ? await createTestDatabase() : undefined;
  const h = await startHarness({ databaseUrl: pg?.url, models: [{ ...catalogueModel('lagoon-demo-embed'), traits: ['default'] }] });
  try {
    const k = h.svc.knowledge;
    const { user } = await signUp(h.svc.store, { email: `bench-${randomBytes(4).toString('hex')}@example.test`, password: 'correct horse battery staple' });
    await grantUsd(h.svc.store, user.accountId, toMicros(1000));

    // 1. Quality.
    const set = await k.of(user.id).create('Constitution');
    for (const p of PASSAGES) await k.upload(user.id, set.id, { name: `${p.id}.txt`, dataUrl: dataUrl(p.text) });
    await waitReady(k, user.id, set.id);
    let lexical = 0;
    let vector = 0;
    let fused = 0;
    let rr = 0;
    for (const q of QUERIES) {
      const { hits, mode } = await k.search(user.id, [set.id], q.q, { limit: 50 });
      if (mode !== 'fused') throw new Error('the search did not use the embedding model');
      const at = hits.findIndex((hit) => hit.fileName === `${q.expect}.txt`);
      const hit = hits[at];
      if (hit?.lexicalRank && hit.lexicalRank <= 5) lexical++;
      if (hit?.vectorRank && hit.vectorRank <= 5) vector++;
      if (at >= 0 && at < 5) fused++;
      if (at >= 0) rr += 1 / (at + 1);
    }
    const n = QUERIES.length;
    console.log(
      `${store} quality (${PASSAGES.length} passages, ${n} questions): recall@5 full-text ${f((100 * lexical) / n)}%, vector (demo embedding) ${f((100 * vector) / n)}%, fused ${f((100 * fused) / n)}%; MRR fused ${f(rr / n, 3)}`,
    );

    // 2. Scale.
    const texts = corpus(CHUNKS);
    const chars = texts.reduce((s, t) => s + t.length, 0);
    const big = await k.of(user.id).create('Scale');
    const t0 = performance.now();
    for (const [i, text] of texts.entries()) await k.upload(user.id, big.id, { name: `part-${i}.txt`, dataUrl: dataUrl(text) });
    await waitReady(k, user.id, big.id);
    const seconds = (performance.now() - t0) / 1000;
    const chunks = (await k.of(user.id).collection(big.id)).chunks;
    const plain = (await k.of(user.id).files(big.id)).find((x) => x.embeddingModel === null);
    if (plain) throw new Error(`${plain.name} has no vectors: ${plain.note}`);
    const pages = chars / PAGE_CHARS;
    console.log(
      `${store} indexing: ${chunks} passages, ${f(pages, 0)} pages in ${f(seconds)} s: ${f(pages / seconds)} pages/s, ${f(chunks / seconds, 0)} passages/s (with vectors)`,
    );
    const ms: number[] = [];
    const lexMs: number[] = [];
    const mine = k.of(user.id);
    for (let round = 0; round < 3; round++)
      for (const q of QUERIES) {
        let t = performance.now();
        const { mode } = await k.search(user.id, [big.id], q.q, { limit: 5 });
        ms.push(performance.now() - t);
        if (mode !== 'fused') throw new Error('the search did not use the embedding model');
        t = performance.now();
        await mine.lexical([big.id], queryTerms(q.q), 50);
        lexMs.push(performance.now() - t);
      }
    console.log(
      `${store} query over ${chunks} passages: fused p50 ${f(pct(ms, 0.5))} ms, p95 ${f(pct(ms, 0.95))} ms; full-text alone p50 ${f(pct(lexMs, 0.5))} ms, p95 ${f(pct(lexMs, 0.95))} ms`,
    );
    // The same files again, indexed for full-text search only (an indexer without an embedding model).
    await k.stop();
    const lexicalOnly = new KnowledgeService({ store: h.svc.store });
    const again = await lexicalOnly.of(user.id).create('Scale, full-text only');
    const t1 = performance.now();
    for (const [i, text] of texts.entries()) await lexicalOnly.upload(user.id, again.id, { name: `part-${i}.txt`, dataUrl: dataUrl(text) });
    await lexicalOnly.drain();
    await waitReady(lexicalOnly, user.id, again.id);
    const plainSeconds = (performance.now() - t1) / 1000;
    await lexicalOnly.stop();
    console.log(`${store} indexing, full-text only: ${f(pages, 0)} pages in ${f(plainSeconds)} s: ${f(pages / plainSeconds)} pages/s`);
    summary.push(
      `${store}_recall5_lexical=${f((100 * lexical) / n)} ${store}_recall5_vector=${f((100 * vector) / n)} ${store}_recall5_fused=${f((100 * fused) / n)} ` +
        `${store}_pages_per_s=${f(pages / seconds)} ${store}_pages_per_s_fulltext=${f(pages / plainSeconds)} ${store}_query_p50_ms=${f(pct(ms, 0.5))} ${store}_query_p95_ms=${f(pct(ms, 0.95))}`,
    );
  } finally {
    await h.close();
    await pg?.drop();
  }
}
console.log(`bench-knowledge: ${summary.join(' ')}`);
