// Admission to an engine: at most `concurrency` requests run, at most `maxQueue` wait (FIFO), each for at most
// `maxWaitMs`. Beyond the queue the model is at capacity (503) at once; a waiter that is not started within its
// bound is refused the same way, and a waiter whose client goes away leaves the queue at once.
import { EngineError } from './text/types.ts';

/** Requests one engine runs at once unless its catalogue entry says otherwise (also its upstream connections). */
export const DEFAULT_MAX_CONCURRENCY = 256;
/** Requests that may wait for one engine unless its catalogue entry says otherwise. */
export const DEFAULT_MAX_QUEUE = 1024;
/** How long a request may wait for a slot unless the catalogue entry says otherwise. */
export const DEFAULT_QUEUE_TIMEOUT_MS = 60_000;

interface Waiter {
  resolve: () => void;
  reject: (e: Error) => void;
  signal: AbortSignal;
  onAbort: () => void;
  timer: ReturnType<typeof setTimeout>;
}

// Every queue of the process, weakly: the metrics read their totals when scraped (a dropped engine's queue goes away).
const live = new Set<WeakRef<AdmissionQueue>>();

/** Requests waiting and running over every admission queue of this process (the engine queue gauges). */
export function engineQueueTotals(): { waiting: number; running: number } {
  let waiting = 0;
  let running = 0;
  for (const ref of live) {
    const q = ref.deref();
    if (!q) live.delete(ref);
    else {
      waiting += q.depth;
      running += q.active;
    }
  }
  return { waiting, running };
}

export class AdmissionQueue {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  readonly concurrency: number;
  readonly maxQueue: number;
  readonly maxWaitMs: number;

  constructor(concurrency: number, maxQueue: number, maxWaitMs = DEFAULT_QUEUE_TIMEOUT_MS) {
    this.concurrency = concurrency;
    this.maxQueue = maxQueue;
    this.maxWaitMs = maxWaitMs;
    live.add(new WeakRef(this));
  }

  get depth() {
    return this.waiting.length;
  }

  get active() {
    return this.running;
  }

  /** Resolves to a release function once the request may run. */
  async acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) throw new EngineError('failed', 'aborted before admission');
    if (this.running < this.concurrency) {
      this.running++;
      return this.releaser();
    }
    if (this.waiting.length >= this.maxQueue) throw new EngineError('capacity', 'the model queue is full');
    await new Promise<void>((resolve, reject) => {
      const leave = () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        signal.removeEventListener('abort', entry.onAbort);
        clearTimeout(entry.timer);
      };
      const entry: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          leave();
          reject(new EngineError('failed', 'aborted while queued'));
        },
        timer: setTimeout(() => {
          leave();
          reject(new EngineError('capacity', `no slot became free within ${this.maxWaitMs} ms`));
        }, this.maxWaitMs),
      };
      signal.addEventListener('abort', entry.onAbort, { once: true });
      this.waiting.push(entry);
    });
    return this.releaser();
  }

  private releaser() {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      if (next) {
        next.signal.removeEventListener('abort', next.onAbort);
        clearTimeout(next.timer);
        next.resolve(); // the slot passes straight to the next waiter
      } else this.running--;
    };
  }
}
