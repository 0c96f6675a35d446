// Reading a SIGN-IN-WITH-X header into one claim: who signed which text for which chain. Two payload forms arrive:
// - the x402 `sign-in-with-x` extension form: the message's fields plus chainId, type and signature; the text is
//   rebuilt from the fields (the x402 SDK clients);
// - the legacy form deployed clients send: { address, message, signature, timestamp?, chainId?, type? } with the
//   full signed text, which is parsed strictly.
// A header that is not base64 JSON is a malformed request (400); a payload that decodes but is wrong is 401.
import { getAddress } from 'viem';
import { ApiError } from '../api/errors.ts';
import { formatSignInMessage, parseSignInMessage, type SignInFields } from './siwx-message.ts';
import { EVM_ADDRESS, SOLANA_DEVNET, SOLANA_MAINNET, type WalletNamespace } from './networks.ts';

export interface SignInClaim {
  form: 'x402' | 'legacy';
  namespace: WalletNamespace;
  /** CAIP-2. */
  chainId: string;
  /** As written in the message. */
  address: string;
  /** The exact signed text. */
  message: string;
  fields: SignInFields;
  signature: string;
  /** Legacy payloads: when the client made the message (Unix ms). */
  timestamp?: number;
}

/** Headers are small; anything much larger is not a sign-in and is refused before decoding. */
export const MAX_SIGN_IN_HEADER = 16 * 1024;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function decodeBase64Json(header: string, code: 'X402_SIGN_IN_MALFORMED' | 'INVALID_PAYMENT_FORMAT', max = MAX_SIGN_IN_HEADER): Record<string, unknown> {
  const text = header.trim();
  if (!text || text.length > max || text.length % 4 !== 0 || !BASE64.test(text)) throw new ApiError(code);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64').toString('utf8'));
  } catch {
    throw new ApiError(code);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError(code);
  return value as Record<string, unknown>;
}

const invalid = (why: string) => new ApiError('X402_SIGN_IN_INVALID_PAYLOAD', `The Sign-In-With-X payload is invalid: ${why}`);

function str(p: Record<string, unknown>, key: string, required: true): string;
function str(p: Record<string, unknown>, key: string, required: false): string | undefined;
function str(p: Record<string, unknown>, key: string, required: boolean): string | undefined {
  const v = p[key];
  if (v === undefined || v === null) {
    if (required) throw invalid(`${key} is required`);
    return undefined;
  }
  if (typeof v !== 'string' || v.length > 4096) throw invalid(`${key} must be a string`);
  return v;
}

/** CAIP-2 namespace and reference of a chain id; legacy clients may send Base's id as a bare number. */
function splitChainId(raw: unknown): { namespace: WalletNamespace; reference: string } | undefined {
  const text = typeof raw === 'number' && Number.isInteger(raw) ? `eip155:${raw}` : typeof raw === 'string' && /^\d+$/.test(raw) ? `eip155:${raw}` : raw;
  if (typeof text !== 'string') return undefined;
  const m = /^(eip155|solana):([-_a-zA-Z0-9]{1,64})$/.exec(text);
  return m ? { namespace: m[1] as WalletNamespace, reference: m[2] } : undefined;
}

const TYPE_OF: Record<WalletNamespace, string> = { eip155: 'eip191', solana: 'ed25519' };
const SOLANA_CLUSTER_REFS: Record<string, string> = {
  mainnet: SOLANA_MAINNET.network.slice('solana:'.length),
  'mainnet-beta': SOLANA_MAINNET.network.slice('solana:'.length),
  devnet: SOLANA_DEVNET.network.slice('solana:'.length),
};

function x402Claim(p: Record<string, unknown>): SignInClaim {
  const chain = splitChainId(p.chainId);
  if (!chain) throw invalid('chainId must be a CAIP-2 chain id such as eip155:8453 or solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp');
  const type = str(p, 'type', true);
  if (type !== TYPE_OF[chain.namespace])
    throw new ApiError('X402_SIGN_IN_CHAIN_MISMATCH', `Signature type ${type} does not fit chain ${chain.namespace}:${chain.reference}`);
  let resources: string[] | undefined;
  if (p.resources !== undefined) {
    if (!Array.isArray(p.resources) || p.resources.length > 32 || !p.resources.every((r) => typeof r === 'string'))
      throw invalid('resources must be an array of strings');
    resources = p.resources as string[];
  }
  const fields: SignInFields = {
    domain: str(p, 'domain', true),
    address: str(p, 'address', true),
    uri: str(p, 'uri', true),
    version: str(p, 'version', true),
    chainReference: chain.reference,
    nonce: str(p, 'nonce', true),
    issuedAt: str(p, 'issuedAt', true),
  };
  const optional = {
    statement: str(p, 'statement', false),
    expirationTime: str(p, 'expirationTime', false),
    notBefore: str(p, 'notBefore', false),
    requestId: str(p, 'requestId', false),
  };
  for (const [k, v] of Object.entries(optional)) if (v !== undefined) (fields as unknown as Record<string, string>)[k] = v;
  if (resources) fields.resources = resources;
  // The x402 SDK writes EVM addresses into the text in their EIP-55 (checksummed) form, whatever case it was given.
  if (chain.namespace === 'eip155' && EVM_ADDRESS.test(fields.address)) {
    try {
      fields.address = getAddress(fields.address);
    } catch {
      throw invalid(`${fields.address} has an invalid EIP-55 checksum`);
    }
  }
  // Lines must stay lines: a newline inside a field would let one text read as another.
  for (const v of [...Object.values(fields), ...(resources ?? [])])
    if (typeof v === 'string' && /[\r\n]/.test(v)) throw invalid('fields may not contain line breaks');
  return {
    form: 'x402',
    namespace: chain.namespace,
    chainId: `${chain.namespace}:${chain.reference}`,
    address: fields.address,
    message: formatSignInMessage(chain.namespace, fields),
    fields,
    signature: str(p, 'signature', true),
  };
}

function legacyClaim(p: Record<string, unknown>): SignInClaim {
  const message = str(p, 'message', true);
  const address = str(p, 'address', true);
  const signature = str(p, 'signature', true);
  const parsed = parseSignInMessage(message);
  if (!parsed) throw new ApiError('X402_SIGN_IN_INVALID_MESSAGE', 'The signed message is not a well-formed EIP-4361 / Sign-In-With-Solana message');
  const { namespace, fields } = parsed;
  // Wallet-built Solana texts often name the cluster instead of its genesis hash; the text is verified as written.
  const chainId = `${namespace}:${namespace === 'solana' ? ((Object.hasOwn(SOLANA_CLUSTER_REFS, fields.chainReference) ? SOLANA_CLUSTER_REFS[fields.chainReference] : undefined) ?? fields.chainReference) : fields.chainReference}`;
  if (p.chainId !== undefined) {
    const claimed = splitChainId(p.chainId);
    if (!claimed) throw invalid('chainId must be 8453, "eip155:8453" or a solana: CAIP-2 id');
    if (`${claimed.namespace}:${claimed.reference}` !== chainId)
      throw new ApiError('X402_SIGN_IN_CHAIN_MISMATCH', `chainId ${String(p.chainId)} does not match the message's ${chainId}`);
  }
  if (p.type !== undefined && p.type !== null && p.type !== TYPE_OF[namespace] && !(namespace === 'eip155' && p.type === 'eip1271')) {
    throw new ApiError('X402_SIGN_IN_CHAIN_MISMATCH', `Signature type ${String(p.type)} does not fit chain ${chainId}`);
  }
  const same = namespace === 'eip155' ? address.toLowerCase() === fields.address.toLowerCase() : address === fields.address;
  if (!same) throw new ApiError('X402_SIGN_IN_ADDRESS_MISMATCH');
  let timestamp: number | undefined;
  if (p.timestamp !== undefined && p.timestamp !== null) {
    if (typeof p.timestamp !== 'number' || !Number.isFinite(p.timestamp)) throw invalid('timestamp must be Unix milliseconds');
    timestamp = p.timestamp;
  }
  return { form: 'legacy', namespace, chainId, address: fields.address, message, fields, signature, timestamp };
}

/** The claim a header makes, unverified. */
export function readSignInHeader(header: string): SignInClaim {
  const payload = decodeBase64Json(header, 'X402_SIGN_IN_MALFORMED');
  return typeof payload.message === 'string' ? legacyClaim(payload) : x402Claim(payload);
}
