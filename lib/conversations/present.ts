// Server records → the app's wire shapes. Each field is copied by name, so a column added to a record later does
// not reach the browser by accident.
import type { Conversation } from './conversations.ts';
import type { User } from '../users/users.ts';
import type { AppConversation, AppUser, ChatSettings } from '../wire.ts';

export const toAppUser = (u: User): AppUser => ({
  id: u.id,
  // A wallet user's users.email is an internal placeholder, never an address to show.
  email: u.wallet ? null : u.email || null,
  displayName: u.displayName || null,
  isAdmin: u.isAdmin,
  createdAt: u.createdAt,
  ...(u.wallet ? { wallet: chainOf(u.wallet) } : {}),
  ...(u.linkedWallet ? { linkedWallet: chainOf(u.linkedWallet) } : {}),
});

const chainOf = (w: NonNullable<User['wallet']>) => ({ address: w.address, chain: w.namespace === 'solana' ? ('solana' as const) : ('evm' as const) });

export function toAppSettings(s: Conversation['settings']): ChatSettings {
  const out: ChatSettings = {};
  if (s.systemPrompt !== undefined) out.systemPrompt = s.systemPrompt;
  if (s.temperature !== undefined) out.temperature = s.temperature;
  if (s.webSearch !== undefined) out.webSearch = s.webSearch;
  if (s.citations !== undefined) out.citations = s.citations;
  if (s.includeServiceSystemPrompt !== undefined) out.includeServiceSystemPrompt = s.includeServiceSystemPrompt;
  if (s.memory !== undefined) out.memory = s.memory;
  if (s.tools !== undefined) out.tools = [...s.tools];
  if (s.knowledge !== undefined) out.knowledge = [...s.knowledge];
  return out;
}

export const toAppConversation = (c: Conversation): AppConversation => ({
  id: c.id,
  title: c.title,
  modelId: c.modelId,
  characterSlug: c.characterSlug,
  settings: toAppSettings(c.settings),
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
  folderId: c.folderId,
  pinned: c.pinnedAt !== null,
  archived: c.archivedAt !== null,
});
