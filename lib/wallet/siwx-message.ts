// The text a wallet signs to sign in: EIP-4361 (Sign-In with Ethereum) for EVM, and the same layout with "Solana
// account" for Solana (CAIP-122, as the x402 `sign-in-with-x` extension formats it). Formatting matches the x402
// SDK byte for byte (it builds EVM text with the siwe library). Parsing is strict: a text is accepted only when
// formatting its fields gives the very same text back, so nothing outside the known lines can hide in a message.
import type { WalletNamespace } from './networks.ts';

export interface SignInFields {
  domain: string;
  address: string;
  statement?: string;
  uri: string;
  version: string;
  /** The Chain ID line: the EVM chain id in decimal, or the Solana CAIP-2 reference (genesis hash). */
  chainReference: string;
  nonce: string;
  issuedAt: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: string[];
}

const ACCOUNT_WORD: Record<WalletNamespace, string> = { eip155: 'Ethereum', solana: 'Solana' };

export function formatSignInMessage(namespace: WalletNamespace, f: SignInFields): string {
  const head = `${f.domain} wants you to sign in with your ${ACCOUNT_WORD[namespace]} account:\n${f.address}`;
  const tail = [`URI: ${f.uri}`, `Version: ${f.version}`, `Chain ID: ${f.chainReference}`, `Nonce: ${f.nonce}`, `Issued At: ${f.issuedAt}`];
  if (f.expirationTime) tail.push(`Expiration Time: ${f.expirationTime}`);
  if (f.notBefore) tail.push(`Not Before: ${f.notBefore}`);
  if (namespace === 'eip155') {
    if (f.requestId !== undefined) tail.push(`Request ID: ${f.requestId}`);
    if (f.resources) tail.push(['Resources:', ...f.resources.map((r) => `- ${r}`)].join('\n'));
    // EIP-4361's grammar keeps an empty line where an absent statement would be.
    return `${f.statement === undefined ? `${head}\n\n` : `${head}\n\n${f.statement}\n`}\n${tail.join('\n')}`;
  }
  if (f.requestId) tail.push(`Request ID: ${f.requestId}`);
  if (f.resources?.length) tail.push('Resources:', ...f.resources.map((r) => `- ${r}`));
  return [head, '', ...(f.statement ? [f.statement, ''] : []), ...tail].join('\n');
}

const HEADER = /^(.+) wants you to sign in with your (Ethereum|Solana) account:$/;
const OPTIONAL_TAGS = [
  ['Expiration Time: ', 'expirationTime'],
  ['Not Before: ', 'notBefore'],
  ['Request ID: ', 'requestId'],
] as const;

/** The fields of a sign-in text, or undefined when it is not exactly a well-formed one. */
export function parseSignInMessage(text: string): { namespace: WalletNamespace; fields: SignInFields } | undefined {
  if (text.length > 8192) return undefined;
  const lines = text.split('\n');
  const header = HEADER.exec(lines[0] ?? '');
  if (!header || lines.length < 8) return undefined;
  const namespace: WalletNamespace = header[2] === 'Ethereum' ? 'eip155' : 'solana';
  let i = 2;
  while (i < lines.length && lines[i] === '') i++;
  let statement: string | undefined;
  if (i < lines.length && !lines[i].startsWith('URI: ')) {
    statement = lines[i++];
    while (i < lines.length && lines[i] === '') i++;
  }
  const take = (tag: string): string | undefined => (lines[i]?.startsWith(tag) ? lines[i++].slice(tag.length) : undefined);
  const uri = take('URI: ');
  const version = take('Version: ');
  const chainReference = take('Chain ID: ');
  const nonce = take('Nonce: ');
  const issuedAt = take('Issued At: ');
  if (uri === undefined || version === undefined || chainReference === undefined || nonce === undefined || issuedAt === undefined) return undefined;
  const fields: SignInFields = { domain: header[1], address: lines[1], uri, version, chainReference, nonce, issuedAt };
  if (statement !== undefined) fields.statement = statement;
  for (const [tag, key] of OPTIONAL_TAGS) {
    const value = take(tag);
    if (value !== undefined) fields[key] = value;
  }
  if (lines[i] === 'Resources:') {
    i++;
    fields.resources = [];
    while (i < lines.length && lines[i].startsWith('- ')) fields.resources.push(lines[i++].slice(2));
  }
  if (i !== lines.length) return undefined;
  return formatSignInMessage(namespace, fields) === text ? { namespace, fields } : undefined;
}
