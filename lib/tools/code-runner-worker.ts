// One run of the code runner, in its own worker thread: QuickJS compiled to WebAssembly, with a memory cap, a stack
// cap and a deadline checked by the interpreter itself. The script sees only the language and `console.log`: no
// file system, network, timers, modules or host objects. The parent also terminates this thread when it overruns.
import { parentPort, workerData } from 'node:worker_threads';
import variant from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, shouldInterruptAfterDeadline } from 'quickjs-emscripten-core';

interface Job {
  code: string;
  timeoutMs: number;
  memoryBytes: number;
  maxOutput: number;
}

const job = workerData as Job;

function show(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return 'undefined';
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

const QuickJS = await newQuickJSWASMModuleFromVariant(variant);
const runtime = QuickJS.newRuntime();
runtime.setMemoryLimit(job.memoryBytes);
runtime.setMaxStackSize(512 * 1024);
runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + job.timeoutMs));
const vm = runtime.newContext();
let output = '';
const log = vm.newFunction('log', (...args) => {
  if (output.length < job.maxOutput) output += `${args.map((h) => show(vm.dump(h))).join(' ')}\n`;
});
const consoleObject = vm.newObject();
vm.setProp(consoleObject, 'log', log);
vm.setProp(consoleObject, 'error', log);
vm.setProp(vm.global, 'console', consoleObject);
log.dispose();
consoleObject.dispose();

let value: string | undefined;
let error: string | undefined;
const r = vm.evalCode(job.code, 'input.js');
if (r.error) {
  const e = vm.dump(r.error) as { name?: string; message?: string } | string;
  r.error.dispose();
  error = typeof e === 'object' && e ? `${e.name ?? 'Error'}: ${e.message ?? ''}` : show(e);
} else {
  const v = vm.dump(r.value);
  r.value.dispose();
  if (v !== undefined) value = show(v);
}
vm.dispose();
runtime.dispose();
parentPort?.postMessage({ output, value, error });
