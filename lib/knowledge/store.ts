// The knowledge tables (migrations 22 and 23), every query scoped to its user by construction: a collection, file or
// passage of another user is as unknown as a made-up id. Full-text search is the one place the two stores differ:
// SQLite's FTS5 (BM25) and PostgreSQL's GIN-indexed tsvector (ts_rank_cd), both with English stemming.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import type { Queryable, Store } from '../db/store.ts';
import type { AppKnowledgeCollection, AppKnowledgeFile, KnowledgeFileStatus } from './wire.ts';

export const MAX_COLLECTIONS = 100;
export const MAX_FILES_PER_COLLECTION = 1000;
/** What one user's files may add up to (uploads as sent, counted while they exist). */
export const MAX_USER_BYTES = 500 * 1024 * 1024;

interface CollectionRow {
  id: string;
  name: string;
  created_at: number | string;
  updated_at: number | string;
  files: number | string;
  chunks: number | string;
  pending: number | string;
}

export interface FileRow {
  id: string;
  collection_id: string;
  user_id: string;
  name: string;
  type: string;
  size: number | string;
  status: KnowledgeFileStatus;
  error: string | null;
  note: string | null;
  chunks: number | string;
  chunks_done: number | string;
  embedding_model: string | null;
  attempts: number | string;
  created_at: number | string;
  updated_at: number | string;
}

export interface ChunkRow {
  id: string;
  file_id: string;
  collection_id: string;
  seq: number;
  text: string;
  file_name: string;
}

const FILE_COLS =
  'f.id, f.collection_id, f.user_id, f.name, f.type, f.size, f.status, f.error, f.note, f.chunks, f.chunks_done, f.embedding_model, f.attempts, f.created_at, f.updated_at';

const notFound = (what: string, id: string) => new ApiError('NOT_FOUND', `No knowledge ${what} ${JSON.stringify(String(id).slice(0, 100))}`, { param: 'id' });

export function toAppCollection(r: CollectionRow): AppKnowledgeCollection {
  return {
    id: r.id,
    name: r.name,
    files: Number(r.files),
    chunks: Number(r.chunks),
    pending: Number(r.pending),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export function toAppFile(r: FileRow): AppKnowledgeFile {
  return {
    id: r.id,
    name: r.name,
    type: r.type,
    size: Number(r.size),
    status: r.status,
    error: r.error,
    note: r.note,
    chunks: Number(r.chunks),
    chunksDone: Number(r.chunks_done),
    embeddingModel: r.embedding_model,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

const COLLECTION_SELECT = `SELECT c.id, c.name, c.created_at, c.updated_at,
    (SELECT COUNT(*) FROM knowledge_files f WHERE f.collection_id = c.id) AS files,
    (SELECT COALESCE(SUM(f.chunks), 0) FROM knowledge_files f WHERE f.collection_id = c.id AND f.status = 'ready') AS chunks,
    (SELECT COUNT(*) FROM knowledge_files f WHERE f.collection_id = c.id AND f.status IN ('queued', 'indexing')) AS pending
  FROM knowledge_collections c`;

/** The user's collections, files and passages. */
export function userKnowledge(store: Store, userId: string) {
  if (!userId) throw new TypeError('userKnowledge needs a user id');

  async function collection(id: string): Promise<AppKnowledgeCollection> {
    const row = await store.get<CollectionRow>(`${COLLECTION_SELECT} WHERE c.id = $1 AND c.user_id = $2`, [id, userId]);
    if (!row) throw notFound('collection', id);
    return toAppCollection(row);
  }

  return {
    collection,

    async collections(): Promise<AppKnowledgeCollection[]> {
      const rows = await store.all<CollectionRow>(`${COLLECTION_SELECT} WHERE c.user_id = $1 ORDER BY c.updated_at DESC, c.id`, [userId]);
      return rows.map(toAppCollection);
    },

    async create(name: string): Promise<AppKnowledgeCollection> {
      const id = randomUUID();
      const at = Date.now();
      await store.tx(async (q) => {
        const n = await q.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM knowledge_collections WHERE user_id = $1`, [userId]);
        if (Number(n?.n ?? 0) >= MAX_COLLECTIONS)
          throw new ApiError('INVALID_REQUEST', `You have ${MAX_COLLECTIONS} knowledge collections, the most allowed: delete one first`);
        await q.run('INSERT INTO knowledge_collections (id, user_id, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)', [id, userId, name, at, at]);
      });
      return collection(id);
    },

    async rename(id: string, name: string): Promise<AppKnowledgeCollection> {
      const n = await store.run('UPDATE knowledge_collections SET name = $1, updated_at = $2 WHERE id = $3 AND user_id = $4', [name, Date.now(), id, userId]);
      if (!n) throw notFound('collection', id);
      return collection(id);
    },

    /** Deletes the collection, its files and their passages (the full-text index follows the passages). */
    async remove(id: string): Promise<void> {
      const n = await store.tx(async (q) => {
        await q.run(`DELETE FROM knowledge_chunks WHERE collection_id = $1 AND user_id = $2`, [id, userId]);
        await q.run(`DELETE FROM knowledge_files WHERE collection_id = $1 AND user_id = $2`, [id, userId]);
        return q.run('DELETE FROM knowledge_collections WHERE id = $1 AND user_id = $2', [id, userId]);
      });
      if (!n) throw notFound('collection', id);
    },

    async files(collectionId: string): Promise<AppKnowledgeFile[]> {
      await collection(collectionId);
      const rows = await store.all<FileRow>(
        `SELECT ${FILE_COLS} FROM knowledge_files f WHERE f.collection_id = $1 AND f.user_id = $2 ORDER BY f.created_at, f.id`,
        [collectionId, userId],
      );
      return rows.map(toAppFile);
    },

    async file(id: string): Promise<AppKnowledgeFile> {
      const row = await store.get<FileRow>(`SELECT ${FILE_COLS} FROM knowledge_files f WHERE f.id = $1 AND f.user_id = $2`, [id, userId]);
      if (!row) throw notFound('file', id);
      return toAppFile(row);
    },

    /** Stores an upload (checked already) queued for indexing. */
    async addFile(
      collectionId: string,
      f: { name: string; type: string; size: number; source: string },
      maxUserBytes = MAX_USER_BYTES,
    ): Promise<AppKnowledgeFile> {
      const id = randomUUID();
      const at = Date.now();
      await store.tx(async (q) => {
        const c = await q.get(`SELECT id FROM knowledge_collections WHERE id = $1 AND user_id = $2${store.forUpdate}`, [collectionId, userId]);
        if (!c) throw notFound('collection', collectionId);
        const n = await q.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM knowledge_files WHERE collection_id = $1', [collectionId]);
        if (Number(n?.n ?? 0) >= MAX_FILES_PER_COLLECTION)
          throw new ApiError('INVALID_REQUEST', `A collection holds at most ${MAX_FILES_PER_COLLECTION} files: delete some or start another collection`);
        const used = await q.get<{ b: number | string | null }>('SELECT SUM(size) AS b FROM knowledge_files WHERE user_id = $1', [userId]);
        if (Number(used?.b ?? 0) + f.size > maxUserBytes)
          throw new ApiError('INVALID_REQUEST', `Your knowledge files may take ${Math.round(maxUserBytes / 1024 / 1024)} MB in all: delete some files first`, {
            param: 'dataUrl',
          });
        await q.run(
          `INSERT INTO knowledge_files (id, collection_id, user_id, name, type, size, status, source, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, 'queued', $7, $8, $9)`,
          [id, collectionId, userId, f.name, f.type, f.size, f.source, at, at],
        );
        await q.run('UPDATE knowledge_collections SET updated_at = $1 WHERE id = $2', [at, collectionId]);
      });
      return this.file(id);
    },

    /** Deletes a file and its passages; an index under way notices at its next write and stops. */
    async removeFile(collectionId: string, id: string): Promise<void> {
      const n = await store.tx(async (q) => {
        const f = await q.get('SELECT id FROM knowledge_files WHERE id = $1 AND collection_id = $2 AND user_id = $3', [id, collectionId, userId]);
        if (!f) return 0;
        await q.run('DELETE FROM knowledge_chunks WHERE file_id = $1 AND user_id = $2', [id, userId]);
        return q.run('DELETE FROM knowledge_files WHERE id = $1 AND user_id = $2', [id, userId]);
      });
      if (!n) throw notFound('file', id);
    },

    /** The ids among `ids` that are this user's collections (a chat's setting may name a deleted one). */
    async ownedCollections(ids: string[]): Promise<string[]> {
      if (!ids.length) return [];
      const rows = await store.all<{ id: string }>(
        `SELECT id FROM knowledge_collections WHERE user_id = $1 AND id IN (${ids.map((_, i) => `$${i + 2}`).join(', ')})`,
        [userId, ...ids],
      );
      return rows.map((r) => r.id);
    },

    /** Up to `limit` passages matching any of `terms`, best first (full-text rank). */
    async lexical(collectionIds: string[], terms: string[], limit: number): Promise<ChunkRow[]> {
      if (!collectionIds.length || !terms.length) return [];
      if (store.kind === 'sqlite') {
        const inList = collectionIds.map((_, i) => `$${i + 4}`).join(', ');
        // Each term quoted (a phrase of one word): the query language's operators never come from the user.
        const match = terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
        return store.all<ChunkRow>(
          `SELECT c.id, c.file_id, c.collection_id, c.seq, c.text, f.name AS file_name
           FROM knowledge_fts JOIN knowledge_chunks c ON c.rowid = knowledge_fts.rowid JOIN knowledge_files f ON f.id = c.file_id
           WHERE knowledge_fts MATCH $1 AND c.user_id = $2 AND f.status = 'ready' AND c.collection_id IN (${inList})
           ORDER BY bm25(knowledge_fts) LIMIT $3`,
          [match, userId, limit, ...collectionIds],
        );
      }
      // PostgreSQL's own ranks know nothing of how rare a word is, which an OR of a question's words needs (else
      // "states" outweighs "senator"). So each term is weighted by its inverse document frequency over the searched
      // passages (as BM25 does): one pass over the passages that hold any term (found through the GIN index) counts
      // each term's, and a passage scores the weights of the terms it holds, ties broken by ts_rank of them all
      // (frequency, normalised by length). Terms are letters and digits only (fuse.ts#queryTerms).
      const ids = collectionIds.map((_, i) => `$${i + 2}`).join(', ');
      const at = collectionIds.length + 2;
      const q = (i: number) => `to_tsquery('english', $${at + i})`;
      const all = `(${terms.map((_, i) => q(i)).join(' || ')})`;
      const idf = (i: number) => `ln(1 + (df.n - df.d${i} + 0.5) / (df.d${i} + 0.5))`;
      return store.all<ChunkRow>(
        `WITH hits AS MATERIALIZED (
           SELECT c.id, c.file_id, c.tsv FROM knowledge_chunks c
           WHERE c.tsv @@ ${all} AND c.user_id = $1 AND c.collection_id IN (${ids})
             AND EXISTS (SELECT 1 FROM knowledge_files f WHERE f.id = c.file_id AND f.status = 'ready')
         ), df AS MATERIALIZED (
           SELECT (SELECT COALESCE(SUM(chunks), 0) FROM knowledge_files WHERE user_id = $1 AND collection_id IN (${ids}) AND status = 'ready')::float8 AS n,
             ${terms.map((_, i) => `(COUNT(*) FILTER (WHERE tsv @@ ${q(i)}))::float8 AS d${i}`).join(', ')}
           FROM hits
         ), best AS (
           SELECT h.id, (${terms.map((_, i) => `CASE WHEN h.tsv @@ ${q(i)} THEN ${idf(i)} ELSE 0 END`).join(' + ')}) AS score,
             ts_rank(h.tsv, ${all}, 1) AS rank
           FROM hits h CROSS JOIN df ORDER BY score DESC, rank DESC, h.id LIMIT $${at + terms.length}
         )
         SELECT c.id, c.file_id, c.collection_id, c.seq, c.text, f.name AS file_name
         FROM best b JOIN knowledge_chunks c ON c.id = b.id JOIN knowledge_files f ON f.id = c.file_id
         ORDER BY b.score DESC, b.rank DESC, b.id`,
        [userId, ...collectionIds, ...terms, limit],
      );
    },

    /** Every ready passage of the collections embedded by `model`: id and vector (base64 float32). */
    async vectors(collectionIds: string[], model: string): Promise<{ id: string; embedding: string }[]> {
      if (!collectionIds.length) return [];
      const inList = collectionIds.map((_, i) => `$${i + 3}`).join(', ');
      return store.all(
        `SELECT c.id, c.embedding FROM knowledge_chunks c JOIN knowledge_files f ON f.id = c.file_id
         WHERE c.user_id = $1 AND c.embedding_model = $2 AND f.status = 'ready' AND c.collection_id IN (${inList}) ORDER BY c.id`,
        [userId, model, ...collectionIds],
      );
    },

    async chunks(ids: string[]): Promise<ChunkRow[]> {
      if (!ids.length) return [];
      return store.all<ChunkRow>(
        `SELECT c.id, c.file_id, c.collection_id, c.seq, c.text, f.name AS file_name FROM knowledge_chunks c JOIN knowledge_files f ON f.id = c.file_id
         WHERE c.user_id = $1 AND c.id IN (${ids.map((_, i) => `$${i + 2}`).join(', ')})`,
        [userId, ...ids],
      );
    },
  };
}

export type UserKnowledge = ReturnType<typeof userKnowledge>;

// ---- the indexer's side: claims, progress, outcome (not user-scoped: it works for whoever uploaded) ----------------

export interface ClaimedFile {
  id: string;
  user_id: string;
  collection_id: string;
  name: string;
  type: string;
  source: string | null;
  attempts: number;
}

/** Takes the oldest queued file (or one whose indexer's lease ran out) under a lease; undefined when none waits. */
export async function claimFile(store: Store, owner: string, leaseMs: number): Promise<ClaimedFile | undefined> {
  const now = Date.now();
  const waiting = `(status = 'queued' OR (status = 'indexing' AND lease_until < $1))`;
  const next = await store.get<{ id: string }>(`SELECT id FROM knowledge_files WHERE ${waiting} ORDER BY created_at, id LIMIT 1`, [now]);
  if (!next) return undefined;
  // The WHERE is checked again: of two instances that saw the same file, one update changes it.
  const n = await store.run(
    `UPDATE knowledge_files SET status = 'indexing', lease_owner = $2, lease_until = $3, attempts = attempts + 1, updated_at = $1
     WHERE id = $4 AND ${waiting}`,
    [now, owner, now + leaseMs, next.id],
  );
  if (!n) return claimFile(store, owner, leaseMs);
  return store.get<ClaimedFile>('SELECT id, user_id, collection_id, name, type, source, attempts FROM knowledge_files WHERE id = $1', [next.id]);
}

/** Writes progress and renews the lease; false when the file is no longer this indexer's (deleted, taken over). */
export async function progress(q: Queryable, id: string, owner: string, leaseMs: number, patch: { chunks?: number; chunksDone: number }): Promise<boolean> {
  const now = Date.now();
  const n = await q.run(
    `UPDATE knowledge_files SET chunks_done = $1, chunks = COALESCE($2, chunks), lease_until = $3, updated_at = $4
     WHERE id = $5 AND lease_owner = $6 AND status = 'indexing'`,
    [patch.chunksDone, patch.chunks ?? null, now + leaseMs, now, id, owner],
  );
  return n > 0;
}

export interface NewChunk {
  seq: number;
  text: string;
  embedding: string | null;
  embeddingModel: string | null;
}

/** Stores a batch of passages and the progress they make, in one transaction, if the file is still ours. */
export async function addChunks(store: Store, file: ClaimedFile, owner: string, leaseMs: number, chunks: NewChunk[], done: number): Promise<boolean> {
  return store.tx(async (q) => {
    if (!(await progress(q, file.id, owner, leaseMs, { chunksDone: done }))) return false;
    const at = Date.now();
    for (const c of chunks) {
      await q.run(
        `INSERT INTO knowledge_chunks (id, file_id, collection_id, user_id, seq, text, embedding, embedding_model, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [randomUUID(), file.id, file.collection_id, file.user_id, c.seq, c.text, c.embedding, c.embeddingModel, at],
      );
    }
    return true;
  });
}

/** A fresh attempt starts clean: passages an interrupted one stored are removed. */
export async function clearChunks(store: Store, fileId: string): Promise<void> {
  await store.run('DELETE FROM knowledge_chunks WHERE file_id = $1', [fileId]);
}

export async function finishFile(
  store: Store,
  id: string,
  owner: string,
  outcome: { status: 'ready'; chars: number; chunks: number; embeddingModel: string | null; note: string | null } | { status: 'failed'; error: string },
): Promise<boolean> {
  const at = Date.now();
  const n =
    outcome.status === 'ready'
      ? await store.run(
          `UPDATE knowledge_files SET status = 'ready', source = NULL, chars = $1, chunks = $2, chunks_done = $2, embedding_model = $3, note = $4,
             lease_owner = NULL, lease_until = NULL, updated_at = $5 WHERE id = $6 AND lease_owner = $7 AND status = 'indexing'`,
          [outcome.chars, outcome.chunks, outcome.embeddingModel, outcome.note, at, id, owner],
        )
      : await store.run(
          `UPDATE knowledge_files SET status = 'failed', source = NULL, error = $1, lease_owner = NULL, lease_until = NULL, updated_at = $2
           WHERE id = $3 AND lease_owner = $4 AND status = 'indexing'`,
          [outcome.error, at, id, owner],
        );
  if (n) await clearOnFailure(store, id, outcome.status);
  return n > 0;
}

async function clearOnFailure(store: Store, id: string, status: string): Promise<void> {
  if (status === 'failed') await clearChunks(store, id);
}
