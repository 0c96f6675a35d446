// What a chat can use: the models (GET /api/app/models) and characters (GET /api/app/characters).

export interface AppModel {
  id: string;
  name: string;
  description?: string;
  /** Prices per million tokens, USD. */
  pricing: { inputUsd: number; outputUsd: number };
  contextLength: number;
  capabilities: { vision: boolean; reasoning: boolean; webSearch: boolean; functionCalling: boolean };
  traits: string[];
  isDefault: boolean;
}

export interface AppCharacter {
  slug: string;
  name: string;
  description: string;
  photoUrl: string | null;
  tags: string[];
  modelId: string | null;
}
