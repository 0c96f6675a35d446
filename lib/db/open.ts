// Opens the configured store and brings its schema up to date.
import fs from 'node:fs';
import path from 'node:path';
import { MIGRATIONS } from './migrations.ts';
import { openPostgres } from './postgres.ts';
import { openSqlite } from './sqlite.ts';
import type { Store } from './store.ts';

export async function migrate(store: Store): Promise<void> {
  await store.run('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
  for (const m of MIGRATIONS) {
    // Each migration commits with its version row, so two processes starting together apply it once.
    await store.tx(async (q) => {
      if (store.kind === 'postgres') await q.run('LOCK TABLE schema_migrations IN EXCLUSIVE MODE');
      const done = await q.get('SELECT version FROM schema_migrations WHERE version = $1', [m.version]);
      if (done) return;
      for (const sql of [...m.sql, ...((store.kind === 'sqlite' ? m.sqlite : m.postgres) ?? [])]) await q.run(typeof sql === 'string' ? sql : sql[store.kind]);
      await q.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, Date.now()]);
    });
  }
}

export async function openStore(opts: { databaseUrl?: string; dataDir: string }): Promise<Store> {
  let store: Store;
  if (opts.databaseUrl) store = openPostgres(opts.databaseUrl);
  else {
    fs.mkdirSync(opts.dataDir, { recursive: true });
    store = openSqlite(path.join(opts.dataDir, 'lagoon.db'));
  }
  await migrate(store);
  return store;
}
