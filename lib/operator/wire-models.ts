// The operator's models page (the operator only):
//   GET    /api/app/operator/models                   → OperatorModelsPage
//   PUT    /api/app/operator/default-model  { modelId: string | null } → OperatorDefaultModel
//   POST   /api/app/operator/models  OperatorModelInput → { model: OperatorModel } (201; an OpenAI-compatible upstream)
//   PATCH  /api/app/operator/models/:id  OperatorModelPatch → { model: OperatorModel }
//   POST   /api/app/operator/models/:id/test          → EngineTestResult
//   DELETE /api/app/operator/models/:id               → 204 (an added model removed, or a file model's overrides undone)
//   POST   /api/app/operator/engines/test  OperatorEngineTest → EngineTestResult (before adding)

/** Where a model comes from: the catalogue file, or the operator's additions. */
export type OperatorModelOrigin = 'file' | 'operator';

export interface OperatorModel {
  id: string;
  name: string;
  type: string;
  description: string | null;
  origin: OperatorModelOrigin;
  disabled: boolean;
  /** Prices per million tokens (token-priced models); null for models priced in other units. */
  pricing: { inputUsd: number; outputUsd: number; inputDiem: number; outputDiem: number } | null;
  /** Whether the operator changed the prices from the file's. */
  pricesOverridden: boolean;
  contextLength: number;
  engine: {
    kind: string;
    /** An upstream's base URLs with any credentials and query removed; null for local engines. */
    baseUrls: string[] | null;
    /** The upstream's own model id, when it differs. */
    upstreamModel: string | null;
    /** How the upstream's key is found: an environment variable (named), stored on the server, or none. Never the key. */
    key: { source: 'env'; name: string } | { source: 'stored' } | { source: 'none' };
  };
  /** The engine's health as last checked: null when it has not been checked. */
  status: { ok: boolean; reason: string | null } | null;
}

/** The model new chats start on. */
export interface OperatorDefaultModel {
  /** The operator's choice (null: none; the built-in default applies). Kept while disabled, but then not used. */
  defaultModelId: string | null;
  /** The model new chats start on now: the choice when it is served, else the catalogue's default (a real model before the demo one). */
  appDefaultModelId: string | null;
}

export interface OperatorModelsPage extends OperatorDefaultModel {
  models: OperatorModel[];
}

export interface OperatorModelInput {
  id: string;
  name?: string;
  description?: string;
  type?: 'text' | 'embedding';
  baseUrl: string;
  /** The upstream's model id (default: `id`). */
  upstreamModel?: string;
  /** Either the name of a server environment variable holding the key, or the key itself (stored server-side). */
  apiKeyEnv?: string;
  apiKey?: string;
  contextLength?: number;
  pricing: { inputUsd: number; outputUsd: number; inputDiem?: number; outputDiem?: number };
  capabilities?: { vision?: boolean; reasoning?: boolean; functionCalling?: boolean };
  /** Embedding models: the vector size. */
  dimensions?: number;
}

export interface OperatorModelPatch {
  disabled?: boolean;
  /** New token prices, or null to go back to the file's. */
  pricing?: { inputUsd: number; outputUsd: number; inputDiem?: number; outputDiem?: number } | null;
}

export interface OperatorEngineTest {
  baseUrl: string;
  upstreamModel?: string;
  apiKeyEnv?: string;
  apiKey?: string;
}

export interface EngineTestResult {
  ok: boolean;
  /** Why it failed (never a secret). */
  reason: string | null;
}
