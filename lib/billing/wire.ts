// The billing page's shapes: balances, spend and the charts (GET /api/app/billing/summary) and the statement
// (GET /api/app/billing/statement, and its CSV/JSON export).

/** Statement entry kinds: charges (inference in any unit; the search and scrape endpoints) and credits (top-ups, grants). */
/** Charges (inference, search), credits (topup, grant), and the ledger's other entries: a refund of an answer that was
 * not delivered, an operator's correction, the release of a hold that was never charged. */
export const STATEMENT_KINDS = ['inference', 'search', 'topup', 'grant', 'refund', 'correction', 'release', 'transfer'] as const;
export type StatementKind = (typeof STATEMENT_KINDS)[number];

export interface SpendWindow {
  usd: number;
  diem: number;
  requests: number;
}

export interface BillingSummary {
  /** Unix ms the figures were read at. */
  now: number;
  balances: {
    /** Spendable now (what requests in flight have not reserved). */
    usd: number;
    diem: number;
    /** Reserved by requests in flight. */
    usdHeld: number;
    diemHeld: number;
    diemDailyAllowance: number;
    /** Unix ms of the next DIEM refill (00:00 UTC). */
    diemResetsAt: number;
  };
  spend: { today: SpendWindow; last7Days: SpendWindow; last30Days: SpendWindow };
  /** USD spend per day over the last 7 days, and when the USD credit runs out at that rate (null: no USD spend). */
  projection: { usdPerDay: number; runsOutAt: number | null };
  chart: {
    /** The models stacked in the spend chart, by spend; the rest are summed as "other". */
    models: string[];
    /** The last 30 UTC days, oldest first. */
    days: BillingChartDay[];
    /** The last 24 hours, oldest first. */
    hours: { hour: number; requests: number }[];
  };
  /** Choices for the statement's filters (models: those used in the last 30 days, busiest first; the filter takes any id). */
  filters: { keys: { id: string; description: string; revoked: boolean }[]; models: string[] };
  /** How this user adds credit from the page: a wallet top-up, or by asking the operator (who grants it). */
  topUp: 'wallet' | 'operator';
  isOperator: boolean;
}

export interface BillingChartDay {
  /** UTC day, YYYY-MM-DD. */
  date: string;
  /** USD spent per model named in chart.models, plus `other`, and in all. */
  spend: Record<string, number>;
  total: number;
  /** DIEM spent, likewise: the two units are never added together. */
  spendDiem: Record<string, number>;
  totalDiem: number;
  tokens: number;
  requests: number;
}

/** A usage row exactly as GET /api/v1/billing/usage-history returns it. */
export interface StatementUsage {
  timestamp: string;
  requestId: string;
  apiKeyId: string | null;
  modelId: string;
  endpoint: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  searches: number;
  scrapedUrls: number;
  usd: number;
  diem: number;
  unit: string;
  quantity: number;
  /** A JSON-RPC proxy call: its network and, per method, calls, credits and error answers. */
  rpc?: { network: string; methods: { method: string; calls: number; credits: number; errors: number }[] };
}

export interface StatementCredit {
  usd: number;
  network: string | null;
  /** The network's name for people (Base, Solana…). */
  networkName: string | null;
  transaction: string | null;
  /** The chain explorer's page of the transaction, when the network has a known explorer. */
  explorerUrl: string | null;
  payer: string | null;
  note: string | null;
  /** DIEM given back (a refund); usd above is signed (a correction may take credit away). */
  diem: number;
  /** A release: what the hold had set aside (nothing was charged). */
  heldUsd: number;
  heldDiem: number;
  /** The request a refund or release is about. */
  requestId: string | null;
}

export interface AppStatementEntry {
  kind: StatementKind;
  id: string;
  /** Unix ms. */
  at: number;
  usage: StatementUsage | null;
  /** The key's description, for charges made with a key of this account. */
  keyDescription: string | null;
  credit: StatementCredit | null;
}

export interface StatementPage {
  entries: AppStatementEntry[];
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}
