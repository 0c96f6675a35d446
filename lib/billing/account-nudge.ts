// Accounts named by settlements (Ledger.onSettled), handed on together after a short wait: the one way the alerts
// (lib/alerts) and the auto top-up (lib/wallet) hear of a charge. Noting an account is a Set add, so the settlement's
// path stays cheap; what the account needs is worked out later, off that path, for every account noted meanwhile.

export class AccountNudge {
  private readonly delayMs: number;
  private readonly flush: (accountIds: string[]) => void;
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  /** `flush` gets the accounts noted during `delayMs` (each once); it must not throw (track its own work). */
  constructor(delayMs: number, flush: (accountIds: string[]) => void) {
    this.delayMs = delayMs;
    this.flush = flush;
  }

  /** Notes the account; it is handed on within `delayMs`. Ignored once stopped. */
  nudge(accountId: string): void {
    if (this.stopped) return;
    this.dirty.add(accountId);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const ids = [...this.dirty];
      this.dirty.clear();
      this.flush(ids);
    }, this.delayMs);
    this.timer.unref();
  }

  /** Whether accounts are noted and not yet handed on. */
  get pending(): boolean {
    return this.timer !== undefined;
  }

  /** Takes nudges again after a stop. */
  resume(): void {
    this.stopped = false;
  }

  /** Drops what is noted and ignores nudges until `resume` (the owner's sweep finds what this drops). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.dirty.clear();
  }
}
