// Streams generated text while watching for stop strings: text that could still turn out to be the start of a
// stop string is held back, and a stop string ends the output without being emitted (OpenAI semantics).

export class StopText {
  private held = '';
  private readonly stops: string[];
  stopped = false;

  constructor(stops: readonly string[]) {
    this.stops = stops.filter((s) => s.length > 0);
  }

  /** Adds generated text; returns the part that is now safe to emit. Sets `stopped` when a stop string appears. */
  push(text: string): string {
    if (this.stopped) return '';
    this.held += text;
    let cut = -1;
    for (const stop of this.stops) {
      const at = this.held.indexOf(stop);
      if (at >= 0 && (cut < 0 || at < cut)) cut = at;
    }
    if (cut >= 0) {
      this.stopped = true;
      const out = this.held.slice(0, cut);
      this.held = '';
      return out;
    }
    const keep = this.partialStopSuffix();
    const out = this.held.slice(0, this.held.length - keep);
    this.held = this.held.slice(this.held.length - keep);
    return out;
  }

  /** The held-back text, once generation has ended without a stop string. */
  flush(): string {
    const out = this.stopped ? '' : this.held;
    this.held = '';
    return out;
  }

  /** Length of the longest suffix of the held text that is a proper prefix of some stop string. */
  private partialStopSuffix(): number {
    let longest = 0;
    for (const stop of this.stops) {
      for (let len = Math.min(stop.length - 1, this.held.length); len > longest; len--) {
        if (this.held.endsWith(stop.slice(0, len))) {
          longest = len;
          break;
        }
      }
    }
    return longest;
  }
}
