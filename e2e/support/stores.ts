// Test helper: a fresh, migrated store on each backend (a temporary SQLite directory or a throwaway PostgreSQL database).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../../lib/db/open.ts';
import type { Store } from '../../lib/db/store.ts';
import { createTestDatabase } from './pg.ts';

export const BACKENDS = ['sqlite', 'postgres'] as const;
export type Backend = (typeof BACKENDS)[number];

export async function freshStore(backend: Backend): Promise<{ store: Store; dispose(): Promise<void> }> {
  if (backend === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-store-'));
    const store = await openStore({ dataDir: dir });
    return {
      store,
      async dispose() {
        await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const db = await createTestDatabase();
  const store = await openStore({ databaseUrl: db.url, dataDir: '/nonexistent' });
  return {
    store,
    async dispose() {
      await store.close();
      await db.drop();
    },
  };
}
