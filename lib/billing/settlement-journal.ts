// The embedded store's settlement journal. A settlement is appended here (one write of one line, no fsync: the
// durability of SQLite's WAL at synchronous=NORMAL, which survives the process but not the machine) before the answer
// that reports it leaves, and committed to SQLite right after, at the end of the same event-loop turn. So the commit
// (a transaction, its pages written to the WAL) is off the answer's path, and a crash between answer and commit loses
// nothing: the next start replays the journal before serving. A replayed settlement that had committed changes
// nothing, because the usage row's request id admits one row per request (settleIn).
import fs from 'node:fs';
import path from 'node:path';
import type { Store } from '../db/store.ts';
import { log } from '../log.ts';
import { memoryHolds } from './holds.ts';
import { type Hold, settleIn, type UsageRecord } from './ledger.ts';
import type { Amount } from './money.ts';

export const JOURNAL_FILE = 'settlements.journal';

/** Beyond this size the file is emptied whenever nothing in it is still waiting for its commit. */
const TRUNCATE_ABOVE_BYTES = 256 * 1024;

export interface JournalEntry {
  hold: Hold;
  cost: Amount;
  usage: UsageRecord;
  /** When the settlement was made: the usage row's time, also when replayed later. */
  at: number;
}

export class SettlementJournal {
  readonly file: string;
  private readonly fd: number;
  /** Lines written whose commit has not happened yet. */
  private pending = 0;
  private bytes = 0;
  private broken = false;

  /** Opens the journal empty: call after `replayJournal`, which has applied whatever the file held. */
  constructor(file: string) {
    this.file = file;
    // Appending: after the file is emptied, the next line goes to its start, not to the old offset.
    const { O_WRONLY, O_CREAT, O_TRUNC, O_APPEND } = fs.constants;
    this.fd = fs.openSync(file, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND);
  }

  static in(dataDir: string): string {
    return path.join(dataDir, JOURNAL_FILE);
  }

  /**
   * Writes the settlement's line; false when it could not (the disk is full, say): the caller then waits for the
   * commit instead, as it would without a journal.
   */
  append(entry: JournalEntry): boolean {
    if (this.broken) return false;
    const line = `${JSON.stringify(entry)}\n`;
    try {
      fs.writeSync(this.fd, line);
    } catch (e) {
      // A short or failed write may have left half a line: replay skips a line it cannot parse, and no later line is
      // written after it, since one failure stops the journal for this process's life.
      this.broken = true;
      log.error({ err: e, file: this.file }, 'the settlement journal cannot be written; answers now wait for their commit');
      return false;
    }
    this.bytes += line.length;
    this.pending++;
    return true;
  }

  /** A journaled settlement has committed. Once none is waiting, a large file starts again empty. */
  committed(): void {
    this.pending--;
    if (this.pending === 0 && this.bytes > TRUNCATE_ABOVE_BYTES && !this.broken) {
      fs.ftruncateSync(this.fd, 0);
      this.bytes = 0;
    }
  }

  /** After the ledger drained: an empty journal is removed; one with uncommitted lines stays for the next start. */
  close(): void {
    fs.closeSync(this.fd);
    if (this.pending === 0) fs.rmSync(this.file, { force: true });
  }
}

/**
 * Applies every settlement a previous process journaled (those that committed change nothing) and empties the file.
 * Runs at start, before any request and after the holds were cleared. Returns how many settlements it applied.
 */
export async function replayJournal(store: Store, file: string): Promise<number> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw e;
  }
  const entries: JournalEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      entries.push(JSON.parse(line) as JournalEntry);
    } catch {
      // Only a write cut short by the crash can leave a partial line; its answer never left in full.
      log.warn({ file }, 'the settlement journal ends in a partial line (a write cut short); it is skipped');
    }
  }
  let applied = 0;
  if (entries.length) {
    // No hold is in memory now: each settlement bills against the whole balance, as settleIn does for a hold the
    // sweep released. The DIEM refill and key periods go by the present; the usage row keeps its own time.
    const holds = memoryHolds();
    await store.tx(async (q) => {
      for (const e of entries) {
        const before = await q.get<{ n: number }>('SELECT COUNT(*) AS n FROM usage WHERE request_id = $1', [e.hold.requestId]);
        await settleIn(store, q, e.hold, e.cost, e.usage, Date.now(), holds, e.at);
        if (!Number(before?.n)) applied++;
      }
    });
  }
  if (applied) log.warn({ file, applied }, `replayed ${applied} settlement(s) that a previous run answered but had not committed`);
  fs.rmSync(file, { force: true });
  return applied;
}
