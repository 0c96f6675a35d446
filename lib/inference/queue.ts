// Admission to an engine: at most `concurrency` requests run, at most `maxQueue` wait (FIFO); beyond that the
// model is at capacity (503) at once rather than after a long wait.
import { EngineError } from './types.ts';

export class AdmissionQueue {
  private running = 0;
  private readonly waiting: { resolve: () => void; reject: (e: Error) => void; signal: AbortSignal; onAbort: () => void }[] = [];
  readonly concurrency: number;
  readonly maxQueue: number;

  constructor(concurrency: number, maxQueue: number) {
    this.concurrency = concurrency;
    this.maxQueue = maxQueue;
  }

  get depth() {
    return this.waiting.length;
  }

  /** Resolves to a release function once the request may run. */
  async acquire(signal: AbortSignal): Promise<() => void> {
    if (this.running < this.concurrency) {
      this.running++;
      return this.releaser();
    }
    if (this.waiting.length >= this.maxQueue) throw new EngineError('capacity', 'the model queue is full');
    await new Promise<void>((resolve, reject) => {
      const entry = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const i = this.waiting.indexOf(entry);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(new EngineError('failed', 'aborted while queued'));
        },
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
        next.resolve(); // the slot passes straight to the next waiter
      } else this.running--;
    };
  }
}
