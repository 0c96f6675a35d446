// Writes the demo GGUF model: node scripts/make-demo-gguf.ts <out.gguf> [seed]
import { stat } from 'node:fs/promises';
import { writeDemoGguf } from '../lib/inference/engines/llama/demo-model.ts';

const [out, seedArg] = process.argv.slice(2);
if (!out || out.startsWith('-')) {
  console.error('usage: node scripts/make-demo-gguf.ts <out.gguf> [seed]');
  process.exit(2);
}
const seed = seedArg === undefined ? undefined : Number(seedArg);
if (seed !== undefined && !Number.isInteger(seed)) {
  console.error(`seed must be an integer, got ${seedArg}`);
  process.exit(2);
}
await writeDemoGguf(out, { seed });
console.log(`wrote ${out} (${(await stat(out)).size} bytes)`);
