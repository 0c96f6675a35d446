// The storage seam: one small async interface served by the embedded SQLite file or by PostgreSQL. SQL is written
// once, in the portable subset both accept, with `$1`-style placeholders.

export type Row = Record<string, unknown>;
export type Param = string | number | bigint | null | boolean;

export interface Queryable {
  all<T = Row>(sql: string, params?: Param[]): Promise<T[]>;
  get<T = Row>(sql: string, params?: Param[]): Promise<T | undefined>;
  /** Runs a statement; resolves to the number of rows it changed. */
  run(sql: string, params?: Param[]): Promise<number>;
}

export interface Store extends Queryable {
  readonly kind: 'sqlite' | 'postgres';
  /**
   * Runs fn in a transaction that holds the write lock from its first statement (SQLite: BEGIN IMMEDIATE;
   * PostgreSQL: callers lock rows with `FOR UPDATE`, which `forUpdate` renders only where it is supported).
   */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** ` FOR UPDATE` on PostgreSQL, empty on SQLite (whose transactions already hold the write lock). */
  readonly forUpdate: string;
  close(): Promise<void>;
}

/** A Store view of an open transaction, so helpers written against Store (createAccount, accountKeys) join it. */
export function storeInTx(store: Store, q: Queryable): Store {
  return {
    kind: store.kind,
    forUpdate: store.forUpdate,
    all: (sql, params) => q.all(sql, params),
    get: (sql, params) => q.get(sql, params),
    run: (sql, params) => q.run(sql, params),
    tx: (fn) => fn(q),
    close: async () => undefined,
  } as Store;
}
