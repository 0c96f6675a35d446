// The private chats' browser wire types (lib/chat/app/private-routes.ts). Every `title` and `content` here is sealed
// in the page (`v1.` + base64 of nonce ‖ AES-GCM ciphertext ‖ tag, under the key derived from the passphrase).

// The stored shapes are the wire shapes (lib/conversations/private.ts): the server adds nothing it could read.
export type { PrivateChat as PrivateChatView, PrivateMessage as PrivateMessageView, PrivateVault as PrivateVaultView } from '../conversations/private.ts';

/** What the worker's attestation proves, for the page to show plainly. */
export interface PrivateAttestation {
  model: string;
  nonce: string;
  /** The worker's public key (130 hex): what the page seals to. */
  signingKey: string;
  signingAddress: string;
  /** True only when a hardware quote was verified; never here without a TEE. */
  verified: boolean;
  /** `none` without a hardware TEE. */
  teeProvider: string;
}
