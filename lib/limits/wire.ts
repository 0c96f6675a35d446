// The rate-limit page's shapes: every model's figures and what is left of them for one of the account's keys
// (GET /api/app/rate-limits/models?keyId=) and the breach log (GET /api/app/rate-limits/log).
import type { ModelRateLimits, RateMeter } from './wire-rate-limits.ts';

export const BREACH_TYPES = ['RPM', 'RPD', 'TPM', 'FAILED_REQUESTS'] as const;
export type BreachKind = (typeof BREACH_TYPES)[number];

export interface ModelLimitStatus extends ModelRateLimits {
  /** text, image, tts, asr, embedding, video… */
  type: string;
  /** The daily request budget and what is left of it, when the tier has one. */
  requestsToday?: RateMeter;
}

export interface LimitsReport {
  mode: 'local' | 'remote';
  tier: 'default' | 'partner';
  windowSeconds: number;
  /** The key whose budgets are shown (each key has its own per model). */
  keyId: string;
  keys: { id: string; description: string; browserApp: boolean }[];
  models: ModelLimitStatus[];
}

export interface BreachItem {
  /** Unix ms. */
  at: number;
  keyId: string | null;
  keyDescription: string | null;
  modelId: string;
  type: BreachKind;
  tier: string;
}

export interface BreachPage {
  items: BreachItem[];
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}
