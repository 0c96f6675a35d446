// The usage dashboard's report (GET /api/app/usage) and the periods it offers.

/** The periods the usage dashboard offers, in days (ending now). */
export const USAGE_PERIODS = [7, 30, 90] as const;
export type UsagePeriod = (typeof USAGE_PERIODS)[number];

/** Requests, tokens and spend over some span (USD and DIEM; 1 DIEM buys 1 USD of inference). */
export interface UsageTotals {
  requests: number;
  promptTokens: number;
  completionTokens: number;
  usd: number;
  diem: number;
}

export interface UsageDay extends UsageTotals {
  /** UTC day, YYYY-MM-DD. */
  date: string;
}

/** A JSON-RPC proxy call (model `rpc:<network>`): its network and, per method, calls, credits and error answers. */
export interface UsageRpc {
  network: string;
  methods: { method: string; calls: number; credits: number; errors: number }[];
}

export interface UsageModel extends UsageTotals {
  modelId: string;
  /** The unit its requests were billed in ('token', 'rpc_credit', 'image', …) and how many. */
  unit?: string;
  quantity?: number;
  rpc?: UsageRpc;
}

/** One request: what it used and cost; never its content. */
export interface UsageRequest {
  /** Unix ms. */
  at: number;
  modelId: string;
  promptTokens: number;
  completionTokens: number;
  usd: number;
  diem: number;
  /** The description of the API key that made it ('browser app' for chats here); null when unknown. */
  via: string | null;
  /** Requests billed in another unit than tokens ('rpc_credit', 'image', …): the unit and how many. */
  unit?: string;
  quantity?: number;
  rpc?: UsageRpc;
}

export interface UsageReport {
  days: UsagePeriod;
  /** The span reported, Unix ms: [from, to). Days are UTC days. */
  from: number;
  to: number;
  /**
   * 'billing': this server's ledger for the account (browser chats and every API key of the account).
   * 'chats': remote inference mode, where the provider bills the operator: the usage it reported for this user's chats.
   */
  source: 'billing' | 'chats';
  totals: UsageTotals;
  /** Every UTC day of the span, oldest first, zeros included. */
  byDay: UsageDay[];
  /** By spend, highest first. */
  byModel: UsageModel[];
  /** The latest requests of the span, newest first (at most 50). */
  recent: UsageRequest[];
}
