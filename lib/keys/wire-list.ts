// The account's API keys as the browser may see them (GET /api/app/keys).

/** An API key of the account as the browser may see it: metadata and spend only. */
export interface AppApiKey {
  id: string;
  description: string;
  type: 'INFERENCE' | 'ADMIN';
  /** The server-held key the browser app chats with. */
  browserApp: boolean;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  /** What requests with this key cost over the last 7 days. */
  lastSevenDays: { usd: number; diem: number };
  /** The key's spending cap and what it has spent in the cap's current period; null when uncapped. */
  cap: { usd: number | null; diem: number | null; period: 'EPOCH' | 'WEEK' | 'MONTH' | 'LIFETIME'; spentUsd: number; spentDiem: number } | null;
  /** The only models the key may run; null: any. */
  models: string[] | null;
}
