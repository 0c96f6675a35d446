// Knowledge collections as the browser app reads them (types only).

export type KnowledgeFileStatus = 'queued' | 'indexing' | 'ready' | 'failed';

export interface AppKnowledgeCollection {
  id: string;
  name: string;
  files: number;
  chunks: number;
  /** Files still queued or being indexed. */
  pending: number;
  createdAt: number;
  updatedAt: number;
}

export interface AppKnowledgeFile {
  id: string;
  name: string;
  /** MIME type. */
  type: string;
  size: number;
  status: KnowledgeFileStatus;
  /** Why indexing failed (status `failed`). */
  error: string | null;
  /** Something worth knowing about a ready file (its passages were indexed for full-text search only, and why). */
  note: string | null;
  /** Passages cut from the file, and how many of them are indexed so far: the progress bar. */
  chunks: number;
  chunksDone: number;
  /** The embedding model its passages were embedded with (null: full-text search only). */
  embeddingModel: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface AppKnowledgeCollectionDetail {
  collection: AppKnowledgeCollection;
  files: AppKnowledgeFile[];
}

/** One retrieved passage: where it came from and how each ranking placed it (1-based; null: not in that list). */
export interface AppKnowledgeHit {
  chunkId: string;
  fileId: string;
  fileName: string;
  collectionId: string;
  seq: number;
  text: string;
  lexicalRank: number | null;
  vectorRank: number | null;
  score: number;
}

export interface AppKnowledgeSearch {
  hits: AppKnowledgeHit[];
  /** How the passages were found: `lexical` alone, or `fused` with the embedding model's vectors. */
  mode: 'lexical' | 'fused';
  embeddingModel: string | null;
}
