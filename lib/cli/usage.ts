// The CLI's usage text and argument helpers. Kept free of imports: `lagoon --help` and every usage error load
// nothing else.
import { parseArgs } from 'node:util';

export const USAGE = `usage: lagoon <command> [options]
  account create --name NAME                 create an account; prints its id
  account list                               list the accounts: id, name, tier, USD and DIEM balances
  key create --account ID --type INFERENCE|ADMIN [--description TEXT] [--expires ISO-DATE]
                                             create an API key; prints the secret once
  key list --account ID                      list an account's keys (never their secrets)
  credit grant --account ID --usd AMOUNT     add USD credit
  credit correct --account ID --usd ±AMOUNT --reason TEXT
                                             correct a balance (a new ledger entry with its reason)
  ledger reconcile                           check every balance against the ledger; exit 1 on a difference
  receipt verify FILE --keys KEYS            check a signed receipt against the published keys, offline
  diem set --account ID --daily AMOUNT       set the daily DIEM allowance
  tier set --account ID --tier default|partner
  models list                                list the model catalogue
  db migrate                                 apply the store's pending migrations; prints the schema version
  model add (--upstream URL | --gguf PATH) …  connect a real model (\`lagoon model add --help\` for its options)
  help, --help, -h                           this text

The store is the server's: LAGOON_DATA_DIR (SQLite) or DATABASE_URL (PostgreSQL).
Each command prints its result on its last line (take it with \`tail -n1\`).`;

/** Bad input: the message, then the usage, and exit status 2. */
export class UsageError extends Error {}

/** The command's --options (strict: an unknown option is a usage error). */
export function options(args: string[], names: readonly string[]): Record<string, string | undefined> {
  const spec = Object.fromEntries(names.map((n) => [n, { type: 'string' as const }]));
  try {
    return parseArgs({ args, options: spec, strict: true, allowPositionals: false }).values as Record<string, string | undefined>;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function need(values: Record<string, string | undefined>, name: string): string {
  const v = values[name];
  if (!v) throw new UsageError(`--${name} is required`);
  return v;
}

/** A non-negative amount as written (USD or DIEM). */
export function amount(raw: string, name: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`--${name} must be a non-negative number, got "${raw}"`);
  return n;
}
