// Remote mode: the remote API's own characters, listed after this server's user-made ones, in the summary shape
// (read-only there: no owner, no stats of ours).
import type { AppCharacter } from '../wire.ts';
import type { CharacterSummary } from './wire.ts';

export const characterToAppRemote = (c: AppCharacter): CharacterSummary => ({
  ...c,
  avatarUrl: c.photoUrl,
  visibility: 'public',
  adult: false,
  owner: null,
  stats: { averageRating: null, ratingCount: 0, chats: 0 },
  createdAt: 0,
  updatedAt: 0,
});
