// The key pages' shapes (GET/POST /api/app/api-keys, PATCH/DELETE /api/app/api-keys/:id). Bodies are the public
// API's own (POST/PATCH /api/v1/api_keys), validated by the same code.
import type { AppApiKey } from './wire-list.ts';

export interface ApiKeysReport {
  keys: AppApiKey[];
  /** Whether this session may create ADMIN keys (an email user, the account's owner; wallet sessions make INFERENCE keys). */
  canCreateAdmin: boolean;
  /** The live keys an account may have. */
  maxActive: number;
  descriptionMax: number;
}

export type KeyLimitPeriod = 'EPOCH' | 'WEEK' | 'MONTH' | 'LIFETIME';

export interface CreateApiKeyRequest {
  apiKeyType: 'INFERENCE' | 'ADMIN';
  description: string;
  /** ISO date or date-time with a zone; null or '' for none. */
  expiresAt?: string | null;
  consumptionLimit?: { usd?: number | null; diem?: number | null };
  limitPeriod?: KeyLimitPeriod;
}

export interface UpdateApiKeyRequest {
  description?: string;
  expiresAt?: string | null;
  /** null removes both caps; inside it, null removes one and an absent field keeps it. */
  consumptionLimit?: { usd?: number | null; diem?: number | null } | null;
  limitPeriod?: KeyLimitPeriod;
}

/** The new key and its secret: shown once, never sent again. */
export interface CreatedApiKey {
  key: AppApiKey;
  secret: string;
}
