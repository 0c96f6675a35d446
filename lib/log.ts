// The server's structured log: JSON lines on stdout (pino), one per request at `info` (lib/http/observe.ts), and the
// problems the server meets (engine failures with their cause, background work that failed) at `warn` / `error`.
// Lines never carry a key, a prompt or a body: callers pass ids, codes and messages, never request data.
import fs from 'node:fs';
import pino from 'pino';
import type { LogLevel } from './config.ts';

// Asynchronous, batched writes: a request line never waits for stdout (a slow pipe would otherwise slow every
// request), and lines leave together, once LOG_BATCH_CHARS are waiting or LOG_FLUSH_MS after the first, instead of
// one write and thread-pool round trip each (issue 18). What is waiting when the process exits is written then; a
// SIGKILL loses at most LOG_FLUSH_MS of lines.
const LOG_BATCH_CHARS = 4096;
const LOG_FLUSH_MS = 50;
const sonic = pino.destination({ dest: 1, sync: false });
let pending = '';
let flushTimer: NodeJS.Timeout | undefined;

function flushLines(): void {
  if (flushTimer) clearTimeout(flushTimer);
  flushTimer = undefined;
  if (!pending) return;
  const lines = pending;
  pending = '';
  sonic.write(lines);
}

const destination = {
  write(line: string): void {
    pending += line;
    if (pending.length >= LOG_BATCH_CHARS) flushLines();
    else flushTimer ??= setTimeout(flushLines, LOG_FLUSH_MS).unref();
  },
  /** pino's `log.flush()`: hands the waiting lines to the stream now. */
  flush(cb?: (err?: Error) => void): void {
    flushLines();
    cb?.();
  },
};

// Lines still waiting at exit follow what the stream holds (pino's own exit hook writes that too; twice is harmless).
process.once('exit', () => {
  if (!pending) return;
  try {
    sonic.flushSync();
    fs.writeSync(1, pending);
  } catch {
    // stdout closed or full at exit: nothing more can be done
  }
});

/** Fields every line written inside a trace carries (lib/metrics/tracing.ts sets it while tracing is on). */
let mixin: (() => object | undefined) | undefined;

export function setLogMixin(fn: (() => object | undefined) | undefined): void {
  mixin = fn;
}

/** The process's logger; its level is the configuration's (setLogLevel), `info` until then. */
export const log = pino(
  {
    level: 'info',
    mixin: () => mixin?.() ?? {},
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Errors as { type, message, stack } under `err`; the level as its name, which people read and grep.
    formatters: { level: (label) => ({ level: label }) },
  },
  destination,
);

export function setLogLevel(level: LogLevel): void {
  log.level = level;
}

/** Whether a line at this level would be written (checked before building one on the request path). */
export const logs = (level: 'debug' | 'info' | 'warn'): boolean => log.isLevelEnabled(level);

/** An error as a short cause for a log line: its message, and its code when it has one (ECONNREFUSED, …). */
export function causeOf(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const code = (e as { code?: unknown }).code;
  const inner = e.cause instanceof Error ? `: ${e.cause.message}` : '';
  return `${typeof code === 'string' ? `${code} ` : ''}${e.message}${inner}`;
}

// The model a request ran on, for its log line. Keyed by the request's response-header object, which the HTTP layer
// hands to the metered call (MeterContext.responseHeaders): no request state is threaded through the pipelines, and
// an entry goes away with its request.
const models = new WeakMap<object, string>();

export function noteModel(responseHeaders: object, model: string): void {
  models.set(responseHeaders, model);
}

export const modelOf = (responseHeaders: object): string | undefined => models.get(responseHeaders);
