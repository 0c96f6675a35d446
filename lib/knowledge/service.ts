// Knowledge: a user's collections of files, indexed in the background and searched when a chat asks.
//  - Upload: checked (upload.ts), stored `queued` with its bytes; the indexer is woken.
//  - Index: an indexer claims the file under a lease (store.ts: a restart, or another instance, takes over a file
//    whose indexer died), reads its text and cuts it into passages in the worker thread, embeds the passages in
//    batches when the catalogue has an embedding model (one metered call a batch, billed to the user who uploaded),
//    and stores them with their progress; the full-text index follows the rows (migration 23). A file deleted while
//    it is indexed is noticed at the next batch and left alone.
//  - Search: full-text (FTS5 / tsvector) always; with an embedding model, the query's vector (billed to the user who
//    asks) against the passages' vectors, scored in the worker thread; the two rankings fused (fuse.ts).
import { randomBytes } from 'node:crypto';
import { isApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import { log } from '../log.ts';
import { queryTerms, reciprocalRankFusion } from './fuse.ts';
import { addChunks, type ClaimedFile, claimFile, clearChunks, finishFile, type NewChunk, progress, userKnowledge } from './store.ts';
import { checkUpload } from './upload.ts';
import type { AppKnowledgeFile, AppKnowledgeHit, AppKnowledgeSearch } from './wire.ts';
import { KnowledgeWorker } from './worker-pool.ts';

/** The one metered embeddings call, as the house provides it (lib/service.ts: lib/embeddings' pipeline). */
export interface Embedder {
  /** The catalogue's embedding model passages are embedded with; undefined when it has none. */
  model(): string | undefined;
  /** Vectors for `inputs` from `model`, billed to the user's account. */
  embed(userId: string, model: string, inputs: string[], signal: AbortSignal): Promise<number[][]>;
}

export interface KnowledgeOptions {
  store: Store;
  embedder?: Embedder;
  /** How long a claimed file is the indexer's without a word from it. */
  leaseMs?: number;
  /** How often an idle indexer looks for queued files (a file uploaded here wakes it at once). */
  pollMs?: number;
  /** Passages embedded in one call. */
  batch?: number;
  /** The most characters read from one file. */
  maxChars?: number;
  /** What one user's files may add up to, in bytes (store.ts#MAX_USER_BYTES). */
  maxUserBytes?: number;
}

/** How many passages each ranking contributes to the fusion. */
const CANDIDATES = 50;

const vectorToBase64 = (v: number[]): string => {
  const buf = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) buf.writeFloatLE(v[i], i * 4);
  return buf.toString('base64');
};

export class KnowledgeService {
  readonly store: Store;
  private readonly embedder: Embedder | undefined;
  private readonly worker = new KnowledgeWorker();
  private readonly owner = randomBytes(6).toString('hex');
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly batch: number;
  private readonly maxChars: number;
  private readonly maxUserBytes: number | undefined;
  private loop: Promise<void> | undefined;
  private stopped = false;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private readonly controller = new AbortController();
  /** Passages stored since PostgreSQL last refreshed the table's statistics here (analyzeNow). */
  private sinceAnalyze = 0;

  constructor(opts: KnowledgeOptions) {
    this.store = opts.store;
    this.embedder = opts.embedder;
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.pollMs = opts.pollMs ?? 2_000;
    this.batch = opts.batch ?? 32;
    this.maxChars = opts.maxChars ?? 5_000_000;
    this.maxUserBytes = opts.maxUserBytes;
  }

  /** The user's collections, files and passages (store.ts). */
  of(userId: string) {
    return userKnowledge(this.store, userId);
  }

  get embeddingModel(): string | undefined {
    return this.embedder?.model();
  }

  async upload(userId: string, collectionId: string, upload: { name: string; type?: string; dataUrl: string }): Promise<AppKnowledgeFile> {
    const checked = checkUpload(upload);
    const file = await this.of(userId).addFile(collectionId, checked, this.maxUserBytes);
    this.wake();
    return file;
  }

  // ---- search ------------------------------------------------------------------------------------------------

  /**
   * The `limit` passages of the collections that best answer `query`: full-text search fused with vector search when
   * the passages were embedded by the catalogue's embedding model. An embedding failure (no credit, the engine down)
   * leaves the full-text ranking alone, never the answer.
   */
  async search(userId: string, collectionIds: string[], query: string, opts: { limit?: number; signal?: AbortSignal } = {}): Promise<AppKnowledgeSearch> {
    const limit = Math.max(1, Math.min(50, opts.limit ?? 5));
    const mine = this.of(userId);
    const ids = await mine.ownedCollections([...new Set(collectionIds)].slice(0, 10));
    const lexical = await mine.lexical(ids, queryTerms(query), CANDIDATES);
    let vector: string[] = [];
    let model = this.embedder?.model();
    if (model && query.trim()) {
      vector = await this.vectorRanking(userId, ids, model, query, opts.signal ?? this.controller.signal).catch((e: unknown) => {
        log.warn({ err: e }, 'knowledge: the query could not be embedded; full-text search only');
        return [];
      });
    }
    if (!vector.length) model = undefined;
    const fused = reciprocalRankFusion(
      lexical.map((r) => r.id),
      vector,
    ).slice(0, limit);
    const rows = new Map(lexical.map((r) => [r.id, r]));
    const missing = fused.filter((f) => !rows.has(f.id)).map((f) => f.id);
    for (const r of await mine.chunks(missing)) rows.set(r.id, r);
    const hits: AppKnowledgeHit[] = [];
    for (const f of fused) {
      const r = rows.get(f.id);
      if (!r) continue;
      hits.push({
        chunkId: r.id,
        fileId: r.file_id,
        fileName: r.file_name,
        collectionId: r.collection_id,
        seq: Number(r.seq),
        text: r.text,
        lexicalRank: f.lexicalRank,
        vectorRank: f.vectorRank,
        score: f.score,
      });
    }
    return { hits, mode: model ? 'fused' : 'lexical', embeddingModel: model ?? null };
  }

  /** Passage ids by cosine similarity to the query's vector, best first; empty when none were embedded by `model`. */
  private async vectorRanking(userId: string, ids: string[], model: string, query: string, signal: AbortSignal): Promise<string[]> {
    const rows = await this.of(userId).vectors(ids, model);
    if (!rows.length) return [];
    const [q] = await this.embedder!.embed(userId, model, [query.slice(0, 8000)], signal);
    const { hits } = await this.worker.run({ op: 'rank', query: q, embeddings: rows.map((r) => r.embedding), top: CANDIDATES });
    return hits.map((h) => rows[h.index].id);
  }

  // ---- indexing ----------------------------------------------------------------------------------------------

  start(): void {
    this.loop ??= this.claimLoop();
  }

  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops claiming; a file being indexed goes back to the queue when its lease runs out (or at the next start). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.controller.abort();
    this.wake();
    await this.loop;
    await this.worker.close();
  }

  /** Indexes every file waiting now, here (tests and the benchmark; the loop does the same in the background). */
  async drain(): Promise<number> {
    let n = 0;
    for (let f = await claimFile(this.store, this.owner, this.leaseMs); f; f = await claimFile(this.store, this.owner, this.leaseMs)) {
      await this.index(f);
      n++;
    }
    return n;
  }

  private async claimLoop(): Promise<void> {
    while (!this.stopped) {
      this.woken = false;
      let file: ClaimedFile | undefined;
      try {
        file = await claimFile(this.store, this.owner, this.leaseMs);
        if (file) await this.index(file);
      } catch (e) {
        if (!this.stopped) log.error({ err: e }, 'knowledge: indexing failed (retried)');
      }
      if (!file && !this.stopped && !this.woken) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.pollMs);
          timer.unref();
          this.wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wakeUp = undefined;
      }
    }
  }

  /**
   * After a bulk of new passages PostgreSQL's planner would go on believing the table small (autovacuum refreshes
   * the statistics a minute or more later) and pick plans that scale with the whole table; ANALYZE reads a sample.
   */
  private async analyzeNow(added: number): Promise<void> {
    this.sinceAnalyze += added;
    if (this.store.kind !== 'postgres' || this.sinceAnalyze < 2000) return;
    this.sinceAnalyze = 0;
    await this.store.run('ANALYZE knowledge_chunks').catch((e) => log.warn({ err: e }, 'knowledge: ANALYZE failed'));
  }

  private async index(file: ClaimedFile): Promise<void> {
    const fail = (error: string) => finishFile(this.store, file.id, this.owner, { status: 'failed', error });
    if (Number(file.attempts) > 3) return void (await fail('Indexing was interrupted three times and was abandoned'));
    if (!file.source) return void (await fail('The upload is missing'));
    // The lease is renewed while the worker reads a long file, so no other indexer takes it meanwhile.
    const renew = setInterval(
      () => void progress(this.store, file.id, this.owner, this.leaseMs, { chunksDone: 0 }).catch(() => {}),
      Math.max(100, this.leaseMs / 3),
    );
    let chunks: string[];
    let chars: number;
    try {
      if (Number(file.attempts) > 1) await clearChunks(this.store, file.id);
      ({ chunks, chars } = await this.worker.run({ op: 'extract', dataUrl: file.source, name: file.name, type: file.type, maxChars: this.maxChars }));
    } catch (e) {
      clearInterval(renew);
      if (!isApiError(e)) log.error({ err: e }, `knowledge: reading ${file.id} failed`);
      return void (await fail(isApiError(e) ? e.message : 'The file could not be read'));
    } finally {
      clearInterval(renew);
    }
    if (!chunks.length) return void (await fail(`"${file.name}" has no text to index`));
    if (!(await progress(this.store, file.id, this.owner, this.leaseMs, { chunks: chunks.length, chunksDone: 0 }))) return;

    let model = this.embedder?.model();
    let note: string | null = model ? null : 'Indexed for full-text search only: this server has no embedding model';
    let embedded = 0;
    for (let at = 0; at < chunks.length; at += this.batch) {
      if (this.stopped) return;
      const texts = chunks.slice(at, at + this.batch);
      let vectors: (number[] | null)[] = texts.map(() => null);
      const used = model;
      if (model) {
        try {
          vectors = await this.embedder!.embed(file.user_id, model, texts, this.controller.signal);
          embedded += texts.length;
        } catch (e) {
          if (this.stopped) return;
          // No credit, or the engine down: the rest is indexed for full-text search, and the file says why.
          note = `${embedded ? `${embedded} of ${chunks.length} passages have vectors; the rest are` : 'Indexed'} for full-text search only: ${isApiError(e) ? e.message : 'the embedding model failed'}`;
          if (!isApiError(e)) log.error({ err: e }, `knowledge: embedding ${file.id} failed`);
          model = undefined;
        }
      }
      const batch: NewChunk[] = texts.map((text, i) => ({
        seq: at + i,
        text,
        embedding: vectors[i] ? vectorToBase64(vectors[i]!) : null,
        embeddingModel: vectors[i] ? (used ?? null) : null,
      }));
      if (!(await addChunks(this.store, file, this.owner, this.leaseMs, batch, at + texts.length))) return; // deleted or taken over
    }
    await this.analyzeNow(chunks.length);
    await finishFile(this.store, file.id, this.owner, {
      status: 'ready',
      chars,
      chunks: chunks.length,
      embeddingModel: embedded === chunks.length ? (model ?? null) : null,
      note,
    });
  }
}
