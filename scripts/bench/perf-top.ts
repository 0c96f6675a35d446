#!/usr/bin/env node
// Summarises Lagoon's on-CPU samples recorded by `BENCH_PERF=DIR npm run bench` (Linux perf, cpu-clock, call
// graphs; the JIT's map names JavaScript frames). Three views, percentages of all samples:
//   - where the CPU went by kind of work, from each sample's innermost frame (the kernel, SQLite, garbage collection,
//     V8's property-access caches, promise machinery, compiled JavaScript by origin, …);
//   - the project's files and the dependencies, with their callees (each counted once per sample);
//   - the project's functions, with their callees (a function's tiers, interpreted to optimised, are one).
//   node scripts/bench/perf-top.ts DIR/lagoon.perf.data [N]
// perf names JavaScript frames from /tmp/perf-<pid>.map, which the run leaves behind: report before removing it.
import { execFileSync } from 'node:child_process';

const [file, n = '30'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/bench/perf-top.ts lagoon.perf.data [N]');
  process.exit(2);
}
const text = execFileSync('perf', ['script', '-i', file, '-F', 'ip,sym', '--no-demangle'], {
  maxBuffer: 1 << 30,
  stdio: ['ignore', 'pipe', 'ignore'],
}).toString();
// One block per sample: frames innermost first, each `address symbol`.
const samples = text
  .split('\n\n')
  .map((b) =>
    b
      .split('\n')
      .map((l) => l.trim().replace(/^[0-9a-f]+ /, ''))
      .filter(Boolean),
  )
  .filter((s) => s.length > 0);
const total = samples.length;
if (!total) {
  console.error(`${file}: no samples`);
  process.exit(1);
}

/** A JavaScript frame's function and place, without V8's tier marks and the checkout's path; undefined otherwise. */
function jsFrame(sym: string): { fn: string; where: string } | undefined {
  const m = /^JS:[*+^~']*'?(\S*) (?:file:\/\/)?(\S+?)(?::\d+)?$/.exec(sym);
  if (!m) return undefined;
  const where = m[2].replace(/^.*?\/((?:lib|scripts|e2e|node_modules)\/)/, '$1');
  return { fn: m[1] || '(anonymous)', where };
}

/** The package a frame belongs to: `lib/<folder>` for the project, the npm name for a dependency, `node:` core. */
function owner(where: string): string {
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules)/.exec(where);
  if (dep) return dep[1];
  if (where.startsWith('node:')) return 'node: (core JavaScript)';
  return where.replace(/:\d+$/, '');
}

const GC = /Scavenge|MarkCompact|Heap::Collect|GCTracer|Sweeper|ConcurrentMarking|MinorMark|MemoryAllocator/;
const COMPILER = /compiler::|Compiler|maglev|Maglev|baseline::|interpreter::|Deoptimizer/;

/** The kind of work a sample was doing, from its innermost frame (and, for GC and compiling, any frame above it). */
function kind(stack: string[]): string {
  const leaf = stack[0];
  if (stack.some((f) => GC.test(f))) return 'garbage collection';
  if (stack.slice(0, 8).some((f) => COMPILER.test(f))) return 'JIT compiling';
  if (stack.some((f) => f.includes('sqlite3'))) return 'SQLite (C)';
  const js = jsFrame(leaf);
  if (js) return js.where.startsWith('lib/') ? 'JavaScript: lib/' : js.where.startsWith('node:') ? 'JavaScript: node core' : 'JavaScript: dependencies';
  if (/IC(_|$)|IC_Megamorphic|StubCache|LookupIterator|FeedbackNexus/.test(leaf)) return 'V8 property access (inline caches)';
  if (/Promise|Microtask|AsyncFunction|Await|Generator/.test(leaf)) return 'V8 promises and async functions';
  if (/Json|JSON/.test(leaf)) return 'JSON';
  if (/RegExp|Regexp|irregexp/.test(leaf)) return 'regular expressions';
  if (/^(malloc|_int_malloc|_int_free|cfree|free|__mem|__libc_malloc)/.test(leaf)) return 'malloc and memory copies';
  if (/String|simdutf|CopyChars/.test(leaf)) return 'V8 strings';
  if (/^Builtins_/.test(leaf)) return 'V8 other built-ins (calls, objects, maps)';
  if (/^_ZN4node|^uv_|^uv__|crypto/.test(leaf)) return 'node and libuv (C++)';
  if (/^_ZN2v8/.test(leaf)) return 'V8 runtime, other';
  if (/^[a-z_][a-z0-9_.]*$/.test(leaf) && !/^_Z/.test(leaf)) return 'kernel (system calls, TCP on loopback)';
  return 'other';
}

const pct = (v: number) => `${((100 * v) / total).toFixed(1).padStart(5)} %`;
const top = (m: Map<string, number>, k = Number(n)) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k);
const kinds = new Map<string, number>();
const owners = new Map<string, number>();
const fns = new Map<string, number>();
for (const stack of samples) {
  const k = kind(stack);
  kinds.set(k, (kinds.get(k) ?? 0) + 1);
  const seenOwners = new Set<string>();
  const seenFns = new Set<string>();
  for (const sym of stack) {
    const js = jsFrame(sym);
    if (!js) continue;
    const o = owner(js.where);
    if (!seenOwners.has(o)) {
      seenOwners.add(o);
      owners.set(o, (owners.get(o) ?? 0) + 1);
    }
    if (!js.where.startsWith('lib/')) continue;
    const f = `${js.fn} ${js.where}`;
    if (!seenFns.has(f)) {
      seenFns.add(f);
      fns.set(f, (fns.get(f) ?? 0) + 1);
    }
  }
}
console.log(`${total} on-CPU samples`);
console.log('by kind of work (innermost frame):');
for (const [k, v] of top(kinds, 30)) console.log(`  ${pct(v)}  ${k}`);
console.log('files and dependencies (callees included):');
for (const [k, v] of top(owners)) console.log(`  ${pct(v)}  ${k}`);
console.log('lib/ functions (callees included):');
for (const [k, v] of top(fns)) console.log(`  ${pct(v)}  ${k}`);
