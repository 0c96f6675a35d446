// The built-in code runner: JavaScript in QuickJS compiled to WebAssembly (quickjs-emscripten, maintained, MIT), each
// run in a fresh worker thread so it never blocks the event loop. Limits: the interpreter's deadline and memory cap,
// a V8 heap cap on the thread, and a hard terminate when the thread overruns; the script has no host access at all
// (no require, fs, network, timers or environment: only the language and console.log).
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { capText, type Tool } from './tool.ts';

export const CODE_RUNNER_ID = 'builtin:code';
export const CODE_RUNNER_NAME = 'Code runner';

const WORKER = new URL('./code-runner-worker.ts', import.meta.url);
const MAX_CODE = 100_000;
/** Runs at once in this process (each takes a core while it lasts); more are refused, not queued. */
const MAX_RUNNING = Math.max(1, availableParallelism() - 1);
let running = 0;
/** Whose runs are going now: one at a time per user, so one user's chats cannot take every slot. */
const runningFor = new Set<string>();

export interface CodeRunnerLimits {
  timeoutMs: number;
  memoryBytes: number;
  maxResultChars: number;
}

interface Outcome {
  output: string;
  value?: string;
  error?: string;
}

/** Runs `code`; resolves with what it printed and its last value, or why it failed. Never rejects. */
export function runJavaScript(code: string, limits: CodeRunnerLimits, signal?: AbortSignal): Promise<Outcome> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER, {
      workerData: { code, timeoutMs: limits.timeoutMs, memoryBytes: limits.memoryBytes, maxOutput: limits.maxResultChars },
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      env: {},
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const finish = (o: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(hard);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      resolve(o);
    };
    // The interpreter stops itself at the deadline; this is for anything that would not (start-up included).
    const hard = setTimeout(() => finish({ output: '', error: `Stopped: the code ran longer than ${limits.timeoutMs} ms` }), limits.timeoutMs + 2000);
    const onAbort = () => finish({ output: '', error: 'Stopped: the answer was stopped' });
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (m: Outcome) => finish(m));
    worker.once('error', (e) => finish({ output: '', error: `The runner failed: ${e.message}` }));
    worker.once('exit', (c) => finish({ output: '', error: `The runner stopped (exit ${c})` }));
  });
}

function text(o: Outcome): string {
  const parts: string[] = [];
  if (o.output) parts.push(o.output.trimEnd());
  if (o.error)
    parts.push(
      o.error.includes('interrupted') ? `Error: the code ran out of time` : o.error.includes('out of memory') ? 'Error: the code ran out of memory' : o.error,
    );
  else if (o.value !== undefined) parts.push(`=> ${o.value}`);
  return parts.join('\n') || '(no output)';
}

/** The tool for one answer; `owner` (the user) runs one script at a time. */
export function codeRunnerTool(limits: CodeRunnerLimits, owner = ''): Tool {
  return {
    name: 'run_javascript',
    description:
      'Runs JavaScript (ES2023, no modules, no network or files) in a sandbox and returns what it printed with console.log and the value of its last expression. Use it for arithmetic, data processing and checking logic.',
    parameters: {
      type: 'object',
      properties: { code: { type: 'string', description: 'The JavaScript to run' } },
      required: ['code'],
      additionalProperties: false,
    },
    server: null,
    async run(args, ctx) {
      const code = typeof args.code === 'string' ? args.code : '';
      if (!code.trim()) return { text: 'Not run: give the code as a string in "code".', isError: true, truncated: false };
      if (code.length > MAX_CODE) return { text: `Not run: the code is longer than ${MAX_CODE} characters.`, isError: true, truncated: false };
      if (running >= MAX_RUNNING || (owner && runningFor.has(owner))) {
        return { text: 'Not run: the code runner is busy with other answers; try again shortly.', isError: true, truncated: false };
      }
      running++;
      if (owner) runningFor.add(owner);
      const o = await runJavaScript(code, limits, ctx.signal).finally(() => {
        running--;
        runningFor.delete(owner);
      });
      const capped = capText(text(o), limits.maxResultChars);
      return { text: capped.text, isError: o.error !== undefined, truncated: capped.truncated };
    },
  };
}
