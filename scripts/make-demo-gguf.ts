// Writes the demo GGUF model: node scripts/make-demo-gguf.ts <out.gguf> [seed] [--size-mb N]
// --size-mb widens the feed-forward layers until the file is about N MB (the llama benchmark's mid-size model).
import { stat } from 'node:fs/promises';
import { buildDemoGguf, writeDemoGguf } from '../lib/engines/text/llama/demo-model.ts';

/** Bytes the file grows by per unit of feed-forward width: 2 layers × 3 matrices × 64 rows × 4-byte floats. */
const BYTES_PER_FFN_UNIT = 2 * 3 * 64 * 4;
const DEFAULT_FFN = 128;

const args = process.argv.slice(2);
const sizeAt = args.indexOf('--size-mb');
const sizeMb = sizeAt >= 0 ? Number(args[sizeAt + 1]) : undefined;
if (sizeAt >= 0) args.splice(sizeAt, 2);
const [out, seedArg] = args;
if (!out || out.startsWith('-')) {
  console.error('usage: node scripts/make-demo-gguf.ts <out.gguf> [seed] [--size-mb N]');
  process.exit(2);
}
const seed = seedArg === undefined ? undefined : Number(seedArg);
if (seed !== undefined && !Number.isInteger(seed)) {
  console.error(`seed must be an integer, got ${seedArg}`);
  process.exit(2);
}
if (sizeMb !== undefined && !(sizeMb > 0 && sizeMb <= 4096)) {
  console.error(`--size-mb must be a number of MB between 0 and 4096, got ${args[sizeAt + 1] ?? 'nothing'}`);
  process.exit(2);
}
await writeDemoGguf(out, { seed, ffnLength: sizeMb === undefined ? undefined : ffnLengthFor(sizeMb * 1e6) });
console.log(`wrote ${out} (${(await stat(out)).size} bytes)`);

/** The feed-forward width whose file is closest to `bytes` (never below the default model). */
function ffnLengthFor(bytes: number): number {
  const base = buildDemoGguf({ seed }).length - DEFAULT_FFN * BYTES_PER_FFN_UNIT;
  return Math.max(DEFAULT_FFN, Math.round((bytes - base) / BYTES_PER_FFN_UNIT));
}
