// The fixed-window counter of the embedded mode (no Redis): rate-limiter-flexible's RateLimiterMemory semantics,
// answered synchronously. The library costs a promise, result objects and a timer per key and window on every
// request; here a key is one Map entry whose expired window is reset when it is next touched, and expired entries
// are swept now and then so idle keys do not pile up. (The Redis mode's insurance limiter stays the library's.)

/** A key's window as callers see it (the fields of the library's RateLimiterRes that they read). */
export interface CounterState {
  /** Points counted in the window, a refused consume's points included (callers refund them). */
  consumedPoints: number;
  remainingPoints: number;
  /** Milliseconds until the window, or a block, ends. */
  msBeforeNext: number;
}

export type Outcome = { ok: boolean; res: CounterState };

export interface MemoryCounterOptions {
  points: number;
  /** The window; positive. */
  durationSeconds: number;
  /** Once the limit is crossed, refuse for this long (the library's blockDuration); 0 or absent: no block. */
  blockSeconds?: number;
}

interface Window {
  consumed: number;
  endsAt: number;
}

/** Below this many keys a sweep is not worth its scan. */
const MIN_SWEEP_SIZE = 1024;

export class MemoryCounter {
  private readonly points: number;
  private readonly durationMs: number;
  private readonly blockMs: number;
  private readonly windows = new Map<string, Window>();
  // A sweep runs when a new key arrives and either the map has doubled since the last one or a window has passed,
  // so the cost stays proportional to the keys added and memory to the keys seen in the last window or two.
  private sweepSize = MIN_SWEEP_SIZE;
  private sweepAt: number;

  constructor(o: MemoryCounterOptions) {
    if (!(o.durationSeconds > 0)) throw new Error('durationSeconds must be positive');
    this.points = o.points;
    this.durationMs = o.durationSeconds * 1000;
    this.blockMs = (o.blockSeconds ?? 0) * 1000;
    this.sweepAt = Date.now() + this.durationMs;
  }

  /** Counts points; refused when the window then holds more than `points` (the points stay counted). */
  consume(key: string, points: number): Outcome {
    const now = Date.now();
    const w = this.add(key, points, now);
    if (w.consumed <= this.points) return { ok: true, res: this.state(w, now) };
    // As the library: only the consume that crosses the limit starts the block; later refusals do not extend it.
    if (this.blockMs > 0 && w.consumed <= this.points + points) w.endsAt = now + this.blockMs;
    return { ok: false, res: this.state(w, now) };
  }

  penalty(key: string, points: number): CounterState {
    const now = Date.now();
    return this.state(this.add(key, points, now), now);
  }

  /** Takes points off; on an expired window this starts a new one below zero, as the library does (see refund). */
  reward(key: string, points: number): CounterState {
    const now = Date.now();
    return this.state(this.add(key, -points, now), now);
  }

  /** The key's window; undefined when nothing is counted in a current one. */
  get(key: string): CounterState | undefined {
    const now = Date.now();
    const w = this.windows.get(key);
    return w !== undefined && w.endsAt > now ? this.state(w, now) : undefined;
  }

  delete(key: string): boolean {
    return this.windows.delete(key);
  }

  /** How many keys are held, expired ones not yet swept included. */
  get size(): number {
    return this.windows.size;
  }

  private add(key: string, points: number, now: number): Window {
    const w = this.windows.get(key);
    if (w === undefined) {
      if (this.windows.size >= this.sweepSize || now >= this.sweepAt) this.sweep(now);
      const fresh = { consumed: points, endsAt: now + this.durationMs };
      this.windows.set(key, fresh);
      return fresh;
    }
    if (w.endsAt > now) w.consumed += points;
    else {
      w.consumed = points;
      w.endsAt = now + this.durationMs;
    }
    return w;
  }

  private sweep(now: number): void {
    for (const [key, w] of this.windows) if (w.endsAt <= now) this.windows.delete(key);
    this.sweepSize = Math.max(MIN_SWEEP_SIZE, 2 * this.windows.size);
    this.sweepAt = now + this.durationMs;
  }

  private state(w: Window, now: number): CounterState {
    return { consumedPoints: w.consumed, remainingPoints: Math.max(this.points - w.consumed, 0), msBeforeNext: w.endsAt - now };
  }
}
