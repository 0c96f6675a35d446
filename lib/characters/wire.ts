// The characters app API's shapes (issue 19: /api/app/characters…), read by the browser and built by
// lib/characters/app-present.ts. A summary is also an AppCharacter, so the chat's picker reads the same list.
import type { AppCharacter } from '../catalogue/wire.ts';

export type Visibility = 'private' | 'public';
export type CharacterSort = 'popular' | 'new' | 'top';

export interface CharacterStats {
  averageRating: number | null;
  ratingCount: number;
  chats: number;
}

export interface CharacterSummary extends AppCharacter {
  /** The app URL of the avatar (changes with every edit, so caches refresh), or null. */
  avatarUrl: string | null;
  visibility: Visibility;
  adult: boolean;
  /** Null for the characters the server ships with. */
  owner: { name: string } | null;
  stats: CharacterStats;
  createdAt: number;
  updatedAt: number;
}

export interface CharacterReview {
  id: string;
  rating: number;
  text: string;
  author: { name: string };
  createdAt: number;
  updatedAt: number;
  isMine: boolean;
}

export interface CharacterDetail extends CharacterSummary {
  instructions: string;
  firstMessage: string;
  exampleDialogue: string;
  temperature: number | null;
  webEnabled: boolean;
  isOwner: boolean;
  myReview: CharacterReview | null;
}

export interface CharacterList {
  characters: CharacterSummary[];
  page: number;
  total: number;
}

export interface ReviewList {
  reviews: CharacterReview[];
  page: number;
  total: number;
}
