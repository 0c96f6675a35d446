// What a chat can use: the models (GET /api/app/models) and characters (GET /api/app/characters).

export interface AppModel {
  id: string;
  name: string;
  description?: string;
  /** A demo model (random weights: readable but meaningless answers); absent otherwise. */
  demo?: true;
  /** Prices per million tokens, USD. */
  pricing: { inputUsd: number; outputUsd: number };
  contextLength: number;
  /** `e2ee`: private (end-to-end encrypted) chats can use it. */
  capabilities: { vision: boolean; reasoning: boolean; webSearch: boolean; functionCalling: boolean; e2ee: boolean };
  traits: string[];
  isDefault: boolean;
  /** Set while the model's engine is down: why (the server checks it again shortly; its messages get 503 until then). */
  unavailable?: string;
}

/** GET /api/app/models. */
export interface AppModelsResponse {
  models: AppModel[];
  /** Whether chats here can search the web; `reason` says why not, in words for the user. */
  webSearch: { available: boolean; reason: string | null };
}

export interface AppCharacter {
  slug: string;
  name: string;
  description: string;
  photoUrl: string | null;
  tags: string[];
  modelId: string | null;
}
