// `lagoon receipt verify FILE --keys KEYS`: checks a receipt offline against a saved copy of the published keys
// (GET /.well-known/lagoon-receipt-keys). Needs no store and no server.
import fs from 'node:fs';
import { receiptProblem } from '../billing/receipts.ts';
import { need, options, UsageError } from './usage.ts';

function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read the ${what} ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`the ${what} ${file} is not JSON`);
  }
}

export async function receiptVerify(args: string[]): Promise<void> {
  const [file, ...rest] = args;
  if (!file || file.startsWith('--')) throw new UsageError('receipt verify needs the receipt file');
  const o = options(rest, ['keys']);
  const receipt = readJson(file, 'receipt') as { receipt?: { request_id?: string; amount?: unknown }; signature?: { kid?: string } };
  const keys = readJson(need(o, 'keys'), 'key set') as { keys?: unknown };
  const problem = receiptProblem(receipt, keys);
  if (problem) {
    console.log(`invalid: ${problem}`);
    process.exitCode = 1;
    return;
  }
  console.log(`valid: request ${receipt.receipt?.request_id} signed by ${receipt.signature?.kid}`);
}
