// `lagoon db migrate`: brings the store's schema up to date and exits (a Kubernetes migration Job, or a deploy
// step before new server versions start). Servers apply the same migrations at start, under a lock, so running it
// is optional; it lets a rollout fail on a bad migration before any pod is replaced.
import { MIGRATIONS } from '../db/migrations.ts';
import { withStore } from './store.ts';
import { options } from './usage.ts';

export async function dbMigrate(args: string[]): Promise<void> {
  options(args, []);
  const version = await withStore(async (store) => {
    const row = await store.get<{ v: number | string | null }>('SELECT MAX(version) AS v FROM schema_migrations');
    return Number(row?.v ?? 0);
  });
  const latest = Math.max(...MIGRATIONS.map((m) => m.version));
  console.log(`schema at version ${version} (this release's latest: ${latest})`);
  console.log(String(version));
}
