// The private chats' browser wire types (lib/chat/app/private-routes.ts). Every `title` and `content` here is sealed
// in the page (`v1.` + base64 of nonce ‖ AES-GCM ciphertext ‖ tag, under the key derived from the passphrase).

export interface PrivateVaultView {
  /** base64 of the PBKDF2 salt. */
  salt: string;
  /** A known text sealed with the key: the page tells a wrong passphrase by failing to open it. */
  check: string;
  createdAt: number;
}

export interface PrivateChatView {
  id: string;
  title: string;
  modelId: string;
  createdAt: number;
  updatedAt: number;
}

export interface PrivateMessageView {
  id: string;
  seq: number;
  role: 'user' | 'assistant';
  content: string;
  requestId: string | null;
  createdAt: number;
}

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
