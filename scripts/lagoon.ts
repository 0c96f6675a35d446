#!/usr/bin/env node
// The operator CLI (`npx lagoon …`). It works on the same store as the running server (LAGOON_DATA_DIR or
// DATABASE_URL). Each command prints its result on its last line, so scripts can take it with `tail -n1`.
//
// Start-up time is most of a CLI call: each command imports only its own module (lib/cli/*) and opens only the
// store, never the service, engines or the app; and compiled code is cached on disk between calls.
import module from 'node:module';
import { USAGE, UsageError } from '../lib/cli/usage.ts';

module.enableCompileCache?.();

type Command = (args: string[]) => Promise<void>;

/** `noun verb` → the command, loaded when called. */
const COMMANDS: Record<string, Command> = {
  'account create': async (a) => (await import('../lib/cli/accounts.ts')).accountCreate(a),
  'account list': async (a) => (await import('../lib/cli/accounts.ts')).accountList(a),
  'key create': async (a) => (await import('../lib/cli/keys.ts')).keyCreate(a),
  'key list': async (a) => (await import('../lib/cli/keys.ts')).keyList(a),
  'credit grant': async (a) => (await import('../lib/cli/accounts.ts')).creditGrant(a),
  'credit correct': async (a) => (await import('../lib/cli/ledger.ts')).creditCorrect(a),
  'ledger reconcile': async (a) => (await import('../lib/cli/ledger.ts')).ledgerReconcile(a),
  'receipt verify': async (a) => (await import('../lib/cli/receipts.ts')).receiptVerify(a),
  'diem set': async (a) => (await import('../lib/cli/accounts.ts')).diemSet(a),
  'tier set': async (a) => (await import('../lib/cli/accounts.ts')).tierSet(a),
  'models list': async (a) => (await import('../lib/cli/catalogue.ts')).modelsList(a),
  'db migrate': async (a) => (await import('../lib/cli/db.ts')).dbMigrate(a),
};

const HELP = new Set(['help', '--help', '-h']);

async function main(argv: string[]): Promise<void> {
  if (argv.length === 0) throw new UsageError('no command given');
  const [noun, verb, ...rest] = argv;
  // `model …` is its own module (scripts/lagoon-model.ts) with its own options and help.
  if (noun === 'model') {
    const model = await import('./lagoon-model.ts');
    if (argv.some((a) => HELP.has(a))) return void console.log(`usage: lagoon model add [options]\n${model.MODEL_USAGE}`);
    return model.modelCommand(verb, rest);
  }
  if (argv.some((a) => HELP.has(a))) return void console.log(USAGE);
  const command = COMMANDS[`${noun} ${verb ?? ''}`.trim()];
  if (!command) throw new UsageError(`unknown command: ${[noun, verb].filter(Boolean).join(' ')}`);
  await command(rest);
}

main(process.argv.slice(2)).catch((e) => {
  if (e instanceof UsageError) {
    console.error(`lagoon: ${e.message}\n${USAGE}`);
    process.exit(2);
  }
  console.error(`lagoon: ${(e as Error).message}`);
  process.exit(1);
});
