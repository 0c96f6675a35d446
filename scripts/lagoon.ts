#!/usr/bin/env node
// The operator CLI (`npx lagoon …`). It works on the same store as the running server (LAGOON_DATA_DIR or
// DATABASE_URL). Each command prints its result on its last line, so scripts can take it with `tail -n1`.
import { parseArgs } from 'node:util';
import { createAccount, getAccount, setAccountTier } from '../lib/accounts/accounts.ts';
import { accountKeys, KEY_TYPES, type KeyType } from '../lib/auth/keys.ts';
import { grantUsd, setDiemDaily } from '../lib/billing/ledger.ts';
import { microsToString, toMicros } from '../lib/billing/money.ts';
import { loadConfig } from '../lib/config.ts';
import { openStore } from '../lib/db/open.ts';
import type { Store } from '../lib/db/store.ts';
import { DEFAULT_CATALOGUE, loadCatalogue } from '../lib/models/catalogue.ts';

const USAGE = `usage: lagoon <command> [options]
  account create --name NAME                 create an account; prints its id
  key create --account ID --type INFERENCE|ADMIN [--description TEXT] [--expires ISO-DATE]
                                             create an API key; prints the secret once
  credit grant --account ID --usd AMOUNT     add USD credit
  diem set --account ID --daily AMOUNT       set the daily DIEM allowance
  tier set --account ID --tier default|partner
  models list                                list the model catalogue`;

class UsageError extends Error {}

function need(values: Record<string, string | undefined>, name: string): string {
  const v = values[name];
  if (!v) throw new UsageError(`--${name} is required`);
  return v;
}

function amount(raw: string, name: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`--${name} must be a non-negative number, got "${raw}"`);
  return toMicros(n);
}

async function account(store: Store, id: string) {
  const a = await getAccount(store, id);
  if (!a) throw new UsageError(`no account with id ${id}`);
  return a;
}

async function main(argv: string[]) {
  const [noun, verb, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      account: { type: 'string' },
      type: { type: 'string' },
      description: { type: 'string' },
      expires: { type: 'string' },
      usd: { type: 'string' },
      daily: { type: 'string' },
      tier: { type: 'string' },
    },
    strict: true,
  });
  const cmd = `${noun ?? ''} ${verb ?? ''}`.trim();
  const config = loadConfig();

  if (cmd === 'models list') {
    const cat = loadCatalogue(config.modelsFile ?? DEFAULT_CATALOGUE, config.catalogueVar);
    for (const m of cat.models) {
      console.log(
        `${m.id}\t${m.type}\t${m.tier}\t$${m.pricing.input_usd}/$${m.pricing.output_usd} per 1M\t${m.engine.kind}${m.demo ? '\t(demo)' : ''}\t${m.name}`,
      );
    }
    return;
  }

  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    switch (cmd) {
      case 'account create': {
        const a = await createAccount(store, need(values, 'name'));
        console.log(a.id);
        return;
      }
      case 'key create': {
        const a = await account(store, need(values, 'account'));
        const type = need(values, 'type').toUpperCase() as KeyType;
        if (!KEY_TYPES.includes(type)) throw new UsageError('--type must be INFERENCE or ADMIN');
        const description = values.description ?? '';
        if (description.length > 64) throw new UsageError('--description is at most 64 characters');
        let expiresAt: number | null = null;
        if (values.expires) {
          expiresAt = Date.parse(values.expires);
          if (!Number.isFinite(expiresAt)) throw new UsageError(`--expires is not a date: ${values.expires}`);
        }
        const { key, secret } = await accountKeys(store, a.id).create({ type, description, expiresAt });
        console.error(`created ${key.type} key ${key.id} for account ${a.id}; the secret is shown only now:`);
        console.log(secret);
        return;
      }
      case 'credit grant': {
        const a = await account(store, need(values, 'account'));
        const b = await grantUsd(store, a.id, amount(need(values, 'usd'), 'usd'), 'cli grant');
        console.log(`usd balance ${microsToString(b.usd)}`);
        return;
      }
      case 'diem set': {
        const a = await account(store, need(values, 'account'));
        const b = await setDiemDaily(store, a.id, amount(need(values, 'daily'), 'daily'));
        console.log(`diem daily ${microsToString(b.diemDaily)}, remaining today ${microsToString(b.diem)}`);
        return;
      }
      case 'tier set': {
        const tier = need(values, 'tier');
        if (tier !== 'default' && tier !== 'partner') throw new UsageError('--tier must be default or partner');
        await account(store, need(values, 'account'));
        await setAccountTier(store, need(values, 'account'), tier);
        console.log(`tier ${tier}`);
        return;
      }
      default:
        throw new UsageError(cmd ? `unknown command: ${cmd}` : 'no command given');
    }
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).catch((e) => {
  if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`lagoon: ${e.message}\n${USAGE}`);
    process.exit(2);
  }
  console.error(`lagoon: ${(e as Error).message}`);
  process.exit(1);
});
