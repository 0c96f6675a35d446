// A throwaway PostgreSQL database per test run: created on the local server (LAGOON_TEST_PG_ADMIN, default the
// machine's trust-auth server) and dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const ADMIN = process.env.LAGOON_TEST_PG_ADMIN ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `lagoon_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: ADMIN });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
