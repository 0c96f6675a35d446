// A single-consumer async queue: a producer pushes items as they are made, the consumer iterates them with
// for-await. It decouples generation from reading, so the producer can always finish (and free what it holds)
// even when the consumer reads slowly or goes away.

export class AsyncQueue<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private done = false;
  private error: { value: unknown } | null = null;
  private wake: (() => void) | null = null;

  push(item: T): void {
    if (this.done) return;
    this.items.push(item);
    this.notify();
  }

  /** No more items; the consumer finishes after draining what is queued. */
  end(): void {
    this.done = true;
    this.notify();
  }

  /** The consumer gets `err` after draining what is queued. */
  fail(err: unknown): void {
    if (this.done) return;
    this.error = { value: err };
    this.done = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for (;;) {
      if (this.items.length > 0) {
        yield this.items.shift()!;
        continue;
      }
      if (this.done) {
        if (this.error) throw this.error.value;
        return;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}
