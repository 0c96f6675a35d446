// The server's store for a CLI command, opened from the configuration alone (no service, engines or app), and
// closed when the command ends.
import { getAccount } from '../accounts/accounts.ts';
import { loadConfig } from '../config.ts';
import { openStore } from '../db/open.ts';
import type { Store } from '../db/store.ts';
import { UsageError } from './usage.ts';

export async function withStore<T>(run: (store: Store) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    return await run(store);
  } finally {
    await store.close();
  }
}

/** The account with this id, or a usage error naming it. */
export async function existingAccount(store: Store, id: string) {
  const a = await getAccount(store, id);
  if (!a) throw new UsageError(`no account with id ${id}`);
  return a;
}
