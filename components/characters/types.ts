// The characters app API's shapes as the browser uses them: the server's (lib/characters/wire.ts) and what the
// editor sends. Types only.

export type {
  CharacterDetail,
  CharacterList,
  CharacterReview,
  CharacterSort,
  CharacterStats,
  CharacterSummary,
  ReviewList,
  Visibility,
} from '@/lib/characters/wire.ts';

/** What the editor sends on create (POST) and save (PATCH). */
export interface CharacterInput {
  name: string;
  description: string;
  tags: string[];
  instructions: string;
  firstMessage: string;
  exampleDialogue: string;
  modelId: string | null;
  temperature: number | null;
  webEnabled: boolean;
}

export interface PreviewMessage {
  role: 'user' | 'assistant';
  content: string;
}
