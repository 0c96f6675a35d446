// An account's statement: every ledger entry that moved its credit, newest first. Charges are its usage rows (the
// rows GET /billing/usage-history reads, mapped by the same toUsageRow), split into inference (any unit) and the
// per-call search and scrape endpoints; credits are settled x402 top-ups of the account's wallet and operator
// grants; and the append-only ledger's other entries (entries.ts): refunds, corrections, releases. Each branch of the
// union filters `account_id = $1` (top-ups through the wallet that owns the account), so no filter a caller passes
// can reach another account's entries. Portable SQL (SQLite and PostgreSQL).
import { rpcUsageOf } from './rpc-usage.ts';
import type { Param, Store } from '../db/store.ts';
import { type CsvValue, toCsv } from './csv.ts';
import { fromMicros } from './money.ts';
import { USAGE_CSV_COLUMNS, usageCsvFields } from './usage-csv.ts';
import { MEMBER_KEYS, toUsageRow, type UsageDbRow, type UsageRow } from './usage-query.ts';

import { STATEMENT_KINDS, type StatementKind } from './wire.ts';

export { STATEMENT_KINDS, type StatementKind };

export interface StatementFilter {
  /** Inclusive lower bound (ms). */
  from?: number;
  /** Exclusive upper bound (ms). */
  to?: number;
  /** Charges made with this key (credits have no key, so they drop out). */
  keyId?: string;
  /** Charges for this model (credits drop out). */
  modelId?: string;
  kind?: StatementKind;
  /** In a team: charges of this member's keys only (credits drop out). */
  memberId?: string;
}

export interface StatementCredit {
  usd: number;
  /** Top-ups: the CAIP-2 network, the transaction and the paying wallet. */
  network: string | null;
  transaction: string | null;
  payer: string | null;
  /** Grants and corrections: the operator's note; an auto top-up: "auto top-up". */
  note: string | null;
  /** Refunds: DIEM given back. */
  diem: number;
  /** Releases: what the hold had set aside. */
  heldUsd: number;
  heldDiem: number;
  /** Refunds and releases: the request. */
  requestId: string | null;
}

export interface StatementEntry {
  kind: StatementKind;
  /** The usage row's request id, the top-up's or the grant's id. */
  id: string;
  /** Unix ms. */
  at: number;
  /** Charges: the usage row exactly as GET /billing/usage-history returns it. */
  usage: UsageRow | null;
  credit: StatementCredit | null;
}

// Every branch has the same columns, each named (the first branch names the union's columns, and a kind filter may
// leave only a credit branch); usage's typed columns come first so PostgreSQL takes their types where it is first.
const CREDIT_BLANKS = `NULL AS request_id, NULL AS key_id, NULL AS model_id, NULL AS endpoint, 0 AS prompt_tokens, 0 AS completion_tokens,
    0 AS cached_tokens, 0 AS searches, 0 AS scraped_urls, NULL AS unit, 0 AS quantity, 0 AS usd, 0 AS diem`;

/** One source of entries: its columns, its rows (FROM), its conditions, and the columns it is ordered by. */
interface Branch {
  columns: string;
  from: string;
  where: string[];
  time: string;
  id: string;
}

const NO_ENTRY = 'CAST(0 AS BIGINT) AS credit_diem, CAST(0 AS BIGINT) AS held_usd, CAST(0 AS BIGINT) AS held_diem, CAST(NULL AS TEXT) AS ref';
const USAGE_COLUMNS = `CASE WHEN u.endpoint LIKE '/augment/%' THEN 'search' ELSE 'inference' END AS kind,
    u.request_id AS id, u.created_at, u.request_id, u.key_id, u.model_id, u.endpoint, u.prompt_tokens, u.completion_tokens, u.cached_tokens,
    u.searches, u.scraped_urls, u.unit, u.quantity, u.usd, u.diem,
    CAST(NULL AS TEXT) AS network, CAST(NULL AS TEXT) AS tx_hash, CAST(NULL AS TEXT) AS payer, CAST(NULL AS TEXT) AS note, CAST(0 AS BIGINT) AS credit, ${NO_ENTRY}`;
const TOPUP_COLUMNS = `'topup' AS kind, t.id AS id, t.updated_at AS created_at, ${CREDIT_BLANKS},
    t.network AS network, t.tx_hash AS tx_hash, t.payer AS payer, CASE WHEN t.origin = 'auto' THEN 'auto top-up' ELSE CAST(NULL AS TEXT) END AS note,
    t.amount AS credit, ${NO_ENTRY}`;
const GRANT_COLUMNS = `'grant' AS kind, g.id AS id, g.created_at AS created_at, ${CREDIT_BLANKS},
    CAST(NULL AS TEXT) AS network, CAST(NULL AS TEXT) AS tx_hash, CAST(NULL AS TEXT) AS payer, g.note AS note, g.usd AS credit, ${NO_ENTRY}`;
const ENTRY_COLUMNS = `l.kind AS kind, l.id AS id, l.created_at AS created_at, ${CREDIT_BLANKS},
    CAST(NULL AS TEXT) AS network, CAST(NULL AS TEXT) AS tx_hash, CAST(NULL AS TEXT) AS payer, l.note AS note, l.usd AS credit,
    l.diem AS credit_diem, l.held_usd AS held_usd, l.held_diem AS held_diem, l.ref AS ref`;
/** The ledger's entries that are statement lines of their own (grants and top-ups have richer rows above). */
const LEDGER_LINES: StatementKind[] = ['refund', 'correction', 'release', 'transfer'];

interface EntryRow extends Omit<UsageDbRow, 'request_id'> {
  kind: StatementKind;
  id: string;
  request_id: string | null;
  network: string | null;
  tx_hash: string | null;
  payer: string | null;
  note: string | null;
  credit: number | string;
  credit_diem: number | string;
  held_usd: number | string;
  held_diem: number | string;
  ref: string | null;
}

/** The branches the filter selects, with their parameters ($1 is always the account; `p` adds more). */
function branchesOf(f: StatementFilter, p: (v: Param) => string): Branch[] {
  const time = (col: string) => [f.from !== undefined ? `${col} >= ${p(f.from)}` : '', f.to !== undefined ? `${col} < ${p(f.to)}` : ''].filter(Boolean);
  const wants = (k: StatementKind) => f.kind === undefined || f.kind === k;
  const chargesOnly = f.keyId !== undefined || f.modelId !== undefined || f.memberId !== undefined;
  const out: Branch[] = [];
  if (wants('inference') || wants('search')) {
    const w = ['u.account_id = $1', ...time('u.created_at')];
    if (f.keyId !== undefined) w.push(`u.key_id = ${p(f.keyId)}`);
    if (f.modelId !== undefined) w.push(`u.model_id = ${p(f.modelId)}`);
    if (f.memberId !== undefined) w.push(MEMBER_KEYS.replace('?', p(f.memberId)));
    if (f.kind === 'search') w.push(`u.endpoint LIKE '/augment/%'`);
    if (f.kind === 'inference') w.push(`u.endpoint NOT LIKE '/augment/%'`);
    out.push({ columns: USAGE_COLUMNS, from: 'usage u', where: w, time: 'u.created_at', id: 'u.request_id' });
  }
  if (wants('topup') && !chargesOnly) {
    out.push({
      columns: TOPUP_COLUMNS,
      from: 'x402_topups t JOIN wallets w ON w.id = t.wallet_id',
      where: ['w.account_id = $1', `t.status = 'settled'`, ...time('t.updated_at')],
      time: 't.updated_at',
      id: 't.id',
    });
  }
  if (wants('grant') && !chargesOnly) {
    out.push({ columns: GRANT_COLUMNS, from: 'credit_grants g', where: ['g.account_id = $1', ...time('g.created_at')], time: 'g.created_at', id: 'g.id' });
  }
  const kinds = LEDGER_LINES.filter(wants);
  if (kinds.length && !chargesOnly) {
    const where = ['l.account_id = $1', `l.kind IN (${kinds.map((k) => `'${k}'`).join(', ')})`, ...time('l.created_at')];
    out.push({ columns: ENTRY_COLUMNS, from: 'ledger_entries l', where, time: 'l.created_at', id: 'l.id' });
  }
  return out;
}

function paramList(accountId: string) {
  const params: Param[] = [accountId];
  const p = (v: Param) => {
    params.push(v);
    return `$${params.length}`;
  };
  return { params, p };
}

/** Where an export has got to: the last entry written (entries are ordered by time, then id, both descending). */
export interface StatementCursor {
  at: number;
  id: string;
}

/**
 * Up to `take` entries of each branch, newest first (and after `cursor`, when given), merged into one order. Each
 * branch reads only the rows it can contribute, in its own index order, so a page costs what it shows, not the
 * account's whole history.
 */
function mergedSql(branches: Branch[], p: (v: Param) => string, take: number, cursor?: StatementCursor): string {
  const limit = p(take);
  const c = cursor && { at: p(cursor.at), id: p(cursor.id) };
  return branches
    .map((b, i) => {
      const where = [...b.where, ...(c ? [`(${b.time} < ${c.at} OR (${b.time} = ${c.at} AND ${b.id} < ${c.id}))`] : [])].join(' AND ');
      return `SELECT * FROM (SELECT ${b.columns} FROM ${b.from} WHERE ${where} ORDER BY ${b.time} DESC, ${b.id} DESC LIMIT ${limit}) b${i}`;
    })
    .join('\nUNION ALL\n');
}

function toEntry(r: EntryRow): StatementEntry {
  const at = Number(r.created_at);
  if (r.kind === 'inference' || r.kind === 'search') {
    return { kind: r.kind, id: r.id, at, usage: toUsageRow({ ...r, request_id: r.request_id ?? r.id }), credit: null };
  }
  return {
    kind: r.kind,
    id: r.id,
    at,
    usage: null,
    credit: {
      usd: fromMicros(Number(r.credit)),
      network: r.network,
      transaction: r.tx_hash,
      payer: r.payer,
      note: r.note,
      diem: fromMicros(Number(r.credit_diem)),
      heldUsd: fromMicros(Number(r.held_usd)),
      heldDiem: fromMicros(Number(r.held_diem)),
      requestId: r.ref,
    },
  };
}

/** JSON-RPC proxy charges carry what they were (network, methods), as GET /billing/usage-history's rows do. */
async function withRpcDetail(store: Store, accountId: string, entries: StatementEntry[]): Promise<StatementEntry[]> {
  const ids = entries.filter((e) => e.usage?.unit === 'rpc_credit').map((e) => e.id);
  if (ids.length === 0) return entries;
  const detail = await rpcUsageOf(store, accountId, ids);
  for (const e of entries) if (e.usage && detail.has(e.id)) e.usage.rpc = detail.get(e.id);
  return entries;
}

/** How many entries match the filter. */
export async function countStatement(store: Store, accountId: string, f: StatementFilter): Promise<number> {
  const { params, p } = paramList(accountId);
  const branches = branchesOf(f, p);
  if (!branches.length) return 0;
  const sum = branches.map((b) => `(SELECT COUNT(*) FROM ${b.from} WHERE ${b.where.join(' AND ')})`).join(' + ');
  const row = await store.get<{ n: number | string }>(`SELECT ${sum} AS n`, params);
  return Number(row?.n ?? 0);
}

/** One page of the statement (newest first; ties by id, so pages never overlap) and how many entries match in all. */
export async function accountStatement(
  store: Store,
  accountId: string,
  q: StatementFilter & { page: number; limit: number },
): Promise<{ entries: StatementEntry[]; total: number }> {
  if (!Number.isSafeInteger(q.page) || q.page < 1) throw new RangeError('page must be an integer of at least 1');
  if (!Number.isSafeInteger(q.limit) || q.limit < 1) throw new RangeError('limit must be an integer of at least 1');
  const total = await countStatement(store, accountId, q);
  const offset = (q.page - 1) * q.limit;
  if (offset >= total) return { entries: [], total };
  const { params, p } = paramList(accountId);
  const branches = branchesOf(q, p);
  const union = mergedSql(branches, p, offset + q.limit);
  const rows = await store.all<EntryRow>(`SELECT * FROM (${union}) e ORDER BY created_at DESC, id DESC LIMIT ${p(q.limit)} OFFSET ${p(offset)}`, params);
  return { entries: await withRpcDetail(store, accountId, rows.map(toEntry)), total };
}

/** The next `limit` entries after `cursor` (from the newest without one): the export reads the statement this way, a batch at a time. */
export async function statementAfter(
  store: Store,
  accountId: string,
  f: StatementFilter,
  cursor: StatementCursor | undefined,
  limit: number,
): Promise<StatementEntry[]> {
  const { params, p } = paramList(accountId);
  const branches = branchesOf(f, p);
  if (!branches.length) return [];
  const union = mergedSql(branches, p, limit, cursor);
  const rows = await store.all<EntryRow>(`SELECT * FROM (${union}) e ORDER BY created_at DESC, id DESC LIMIT ${p(limit)}`, params);
  return withRpcDetail(store, accountId, rows.map(toEntry));
}

/** Every matching entry, newest first, in batches (keyset-paged: entries arriving meanwhile are newer, so none repeats or goes missing). */
export async function* statementBatches(store: Store, accountId: string, f: StatementFilter, batch = 1000): AsyncGenerator<StatementEntry[]> {
  let cursor: StatementCursor | undefined;
  for (;;) {
    const entries = await statementAfter(store, accountId, f, cursor, batch);
    if (entries.length) yield entries;
    if (entries.length < batch) return;
    const last = entries[entries.length - 1];
    cursor = { at: last.at, id: last.id };
  }
}

/** The statement's CSV: the usage history's columns (the same record as GET /billing/usage-history for a charge), then the entry's kind and credit. */
export const STATEMENT_CSV_COLUMNS = [...USAGE_CSV_COLUMNS, 'kind', 'entryId', 'creditUsd', 'network', 'transaction', 'payer', 'note'] as const;

/** The CSV header line. */
export const statementCsvHeader = (): string => toCsv(STATEMENT_CSV_COLUMNS, []);

/** CSV records (no header) for entries: a charge as the API's usage record, then its kind; a credit after blank usage columns. */
export function statementCsvRecords(entries: readonly StatementEntry[]): string {
  const blanks: CsvValue[] = USAGE_CSV_COLUMNS.map(() => null);
  const rows = entries.map((e) => {
    if (e.usage) return [...usageCsvFields(e.usage), e.kind, e.id, null, null, null, null, null];
    const c = e.credit as StatementCredit;
    const head = [...blanks];
    head[0] = new Date(e.at).toISOString();
    return [...head, e.kind, e.id, c.usd, c.network, c.transaction, c.payer, c.note];
  });
  return toCsv(STATEMENT_CSV_COLUMNS, rows).slice(statementCsvHeader().length);
}

/** A whole statement as one CSV document. */
export const statementCsv = (entries: readonly StatementEntry[]): string => statementCsvHeader() + statementCsvRecords(entries);
