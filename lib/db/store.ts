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
