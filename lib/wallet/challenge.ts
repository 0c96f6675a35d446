// A Sign-In-With-X challenge: the fields a wallet signs (the x402 `sign-in-with-x` extension's `info`), with a fresh
// server nonce, and the chains it may sign with. Clients sign it as is; its domain and URI are this server's public
// origin, which is what sign-in checks against.
import { buildSIWxSchema } from '@x402/extensions/sign-in-with-x';
import type { Store } from '../db/store.ts';
import type { WalletConfig } from './config.ts';
import { issueNonce } from './nonces.ts';

export interface SiwxChallenge {
  info: {
    domain: string;
    uri: string;
    version: '1';
    statement: string;
    nonce: string;
    issuedAt: string;
    expirationTime: string;
  };
  supportedChains: { chainId: string; type: 'eip191' | 'ed25519' }[];
  schema: ReturnType<typeof buildSIWxSchema>;
}

/** A challenge for signing in at `path` (an API path such as /api/v1/chat/completions). */
export async function issueChallenge(store: Store, cfg: WalletConfig, path: string, now = Date.now()): Promise<SiwxChallenge> {
  const { nonce, issuedAt, expiresAt } = await issueNonce(store, cfg.siwx.nonceTtlMs, now);
  const origin = new URL(cfg.publicOrigin);
  return {
    info: {
      domain: origin.host,
      uri: `${origin.origin}${path}`,
      version: '1',
      statement: cfg.siwx.statement,
      nonce,
      issuedAt: new Date(issuedAt).toISOString(),
      expirationTime: new Date(expiresAt).toISOString(),
    },
    supportedChains: [
      { chainId: cfg.evm.network, type: 'eip191' },
      { chainId: cfg.solana.network, type: 'ed25519' },
    ],
    schema: buildSIWxSchema(),
  };
}
