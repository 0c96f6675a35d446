// PostgreSQL store (DATABASE_URL). BIGINT columns come back as numbers: every amount is an integer count of
// micro-units far below 2^53.
import pg from 'pg';
import type { Param, Queryable, Store } from './store.ts';
import { log } from '../log.ts';

const types = {
  getTypeParser: (oid: number, format?: string) => (oid === 20 || oid === 1700 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')),
};

function queryable(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async all<T>(sql: string, params?: Param[]) {
      return (await client.query({ text: sql, values: params, types })).rows as T[];
    },
    async get<T>(sql: string, params?: Param[]) {
      return (await client.query({ text: sql, values: params, types })).rows[0] as T | undefined;
    },
    async run(sql: string, params?: Param[]) {
      return (await client.query({ text: sql, values: params, types })).rowCount ?? 0;
    },
  };
}

export function openPostgres(url: string, max = 10): Store {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle connection the server drops (a restart, a failover, an administrator) must not crash the process: the
  // pool replaces it, and queries in flight fail on their own promises.
  pool.on('error', (e) => log.warn(`postgres: an idle connection failed and will be replaced: ${e.message}`));
  const base = queryable(pool);
  return {
    kind: 'postgres',
    forUpdate: ' FOR UPDATE',
    ...base,
    async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const value = await fn(queryable(client));
        await client.query('COMMIT');
        return value;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
