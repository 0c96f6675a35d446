// The browser app's own JSON API (served under /api/app by Next route handlers that call lib/app): the shapes the
// server sends and the client reads. Types only, so the React client can import them without pulling server code.
//
// Routes (all JSON unless noted; every non-GET needs the session's CSRF token in `x-csrf-token`; errors use the
// service's error body `{ error, code, ... }` with its status; 401 `AUTHENTICATION_FAILED` without a session):
//   GET    /api/app/auth/me                              → MeResponse (401 when signed out)
//   POST   /api/app/auth/sign-up   {email,password,displayName?} → MeResponse + Set-Cookie
//   POST   /api/app/auth/sign-in   {email,password}      → MeResponse + Set-Cookie
//   POST   /api/app/auth/sign-out                        → 204, cookie cleared
//   GET    /api/app/models                               → { models: AppModel[] }
//   GET    /api/app/characters?q=                        → { characters: AppCharacter[] }
//   GET    /api/app/account                              → AccountSummary
//   GET    /api/app/conversations?cursor=&limit=         → { items: AppConversation[], nextCursor }
//   POST   /api/app/conversations {modelId?,characterSlug?,settings?} → AppConversation (201)
//   GET    /api/app/conversations/:id                    → AppConversationWithMessages (all branches)
//   PATCH  /api/app/conversations/:id {title?,modelId?,settings?(patch; null removes)} → AppConversation
//   DELETE /api/app/conversations/:id                    → 204
//   GET    /api/app/conversations/:id/export?format=md|json&leaf= → a download (Content-Disposition)
//   GET    /api/app/search?q=                            → { hits: AppSearchHit[] }
//   POST   /api/app/conversations/:id/messages  SendMessageRequest → SendMessageResponse (201); generation starts
//   POST   /api/app/messages/:id/regenerate  {modelId?}  → { assistant: AppMessage } (201): a new sibling answer
//   POST   /api/app/messages/:id/stop                    → { message: AppMessage } (the partial answer, kept)
//   GET    /api/app/messages/:id/stream                  → text/event-stream of GenerationEvent (attach/reattach)
//   GET    /api/app/limits                               → AttachmentLimits
//   GET    /api/app/wallet/challenge?address=&chain=evm|solana → WalletChallenge (a fresh single-use sign-in challenge)
//   POST   /api/app/wallet/sign-in  WalletSignInRequest   → MeResponse + Set-Cookie (no CSRF token yet: Origin-checked)
//   GET    /api/app/wallet/top-up/requirements?amount=&chain= → WalletTopUpRequirements (wallet users only)
//   POST   /api/app/wallet/top-up   WalletTopUpRequest    → WalletTopUpResponse (wallet users only; payer = the user's wallet)
//   GET    /api/app/usage?days=7|30|90                   → UsageReport (the session user's own account only)
//   GET    /api/app/rate-limits                          → RateLimitsReport (read without consuming anything)
//   GET    /api/app/keys                                 → { keys: AppApiKey[] } (metadata only: never a secret, hash or last characters)

export type WebSearchMode = 'off' | 'on' | 'auto';

export interface AppUser {
  id: string;
  email: string | null;
  displayName: string | null;
  isAdmin: boolean;
  createdAt: number;
  /** Set for a user who signed in with a wallet (email is then null). */
  wallet?: { address: string; chain: WalletChain };
}

export interface MeResponse {
  user: AppUser;
  /** Send back in `x-csrf-token` on every state-changing request. */
  csrfToken: string;
}

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

export interface AccountSummary {
  /** Spendable now (what running requests have not reserved). */
  balances: { usd: number; diem: number };
  /** The daily DIEM allowance, refilled at 00:00 UTC. */
  diemDailyAllowance?: number;
  /** ISO time of the next DIEM refill. */
  diemResetsAt?: string;
  /** How this deployment adds credit (operator CLI, or wallet top-up once wallets exist). */
  topUp: { howTo: string; url: string | null };
}

export interface ChatSettings {
  systemPrompt?: string;
  temperature?: number;
  webSearch?: WebSearchMode;
  citations?: boolean;
  includeServiceSystemPrompt?: boolean;
}

export interface AppConversation {
  id: string;
  title: string;
  modelId: string | null;
  characterSlug: string | null;
  settings: ChatSettings;
  createdAt: number;
  updatedAt: number;
}

export interface AppAttachment {
  id: string;
  name: string;
  /** MIME type. */
  type: string;
  size: number;
  kind: 'image' | 'document';
  /** Images only: a data: URL for the thumbnail. Documents never carry their bytes back to the browser. */
  previewUrl?: string;
}

export interface AppCitation {
  url: string;
  title?: string;
  date?: string | null;
}

export interface AppUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** What the request cost, USD (0 when covered by DIEM). */
  costUsd: number;
  costDiem: number;
}

export interface AppError {
  code: string;
  status: number;
  message: string;
  /** Seconds, for 429/503. */
  retryAfter?: number;
}

export type AppMessageStatus = 'complete' | 'streaming' | 'stopped' | 'error';

export interface AppMessage {
  id: string;
  conversationId: string;
  parentId: string | null;
  role: 'user' | 'assistant' | 'system';
  content: string;
  reasoning: string | null;
  attachments: AppAttachment[];
  citations: AppCitation[];
  modelId: string | null;
  status: AppMessageStatus;
  usage: AppUsage | null;
  error: AppError | null;
  createdAt: number;
}

export interface AppConversationWithMessages extends AppConversation {
  /** Every message of every branch, oldest first; the client builds the tree from parentId. */
  messages: AppMessage[];
}

export interface AppSearchHit {
  conversation: AppConversation;
  snippet: string;
  messageId: string | null;
}

/** An attachment as the browser uploads it. */
export interface UploadAttachment {
  name: string;
  type: string;
  /** data: URL (base64) of the file. */
  dataUrl: string;
}

export interface SendMessageRequest {
  /** The message this one answers to: the last message of the branch, or an earlier one to edit-and-branch. Null starts the conversation. */
  parentId: string | null;
  content: string;
  attachments?: UploadAttachment[];
  /** Overrides the conversation's model for this turn (and becomes the conversation's model). */
  modelId?: string;
  /** Edit-and-resend: a user message of this conversation whose stored attachments go with this one too. */
  attachmentsFrom?: string;
}

export interface SendMessageResponse {
  user: AppMessage;
  assistant: AppMessage;
  conversation: AppConversation;
}

export interface AttachmentLimits {
  maxFiles: number;
  maxFileBytes: number;
  imageTypes: string[];
  documentTypes: string[];
  /** Accept attribute for <input type=file>. */
  accept: string;
}

/** Server-sent events on /api/app/messages/:id/stream; each `data:` line is one JSON GenerationEvent. */
export type GenerationEvent =
  /** First event on every attach: everything generated so far. */
  | { type: 'snapshot'; content: string; reasoning: string; citations: AppCitation[]; status: AppMessageStatus }
  | { type: 'delta'; content?: string; reasoning?: string }
  | { type: 'citations'; citations: AppCitation[] }
  /** Last event: the stored message in its final state (status complete, stopped or error; usage; error). */
  | { type: 'done'; message: AppMessage };

/** The wallet families the app signs in and tops up with: EVM (Base) and Solana. */
export type WalletChain = 'evm' | 'solana';

/** The Sign-In-With-X fields (x402 `sign-in-with-x` form) a wallet signs over, as the server issued them. */
export interface WalletSignInFields {
  domain: string;
  address: string;
  statement: string;
  uri: string;
  version: '1';
  /** CAIP-2, e.g. eip155:8453. */
  chainId: string;
  type: 'eip191' | 'ed25519';
  nonce: string;
  issuedAt: string;
  expirationTime: string;
}

export interface WalletChallenge {
  /** The exact text the wallet signs (EIP-4361 for EVM, its Solana form for Solana). */
  message: string;
  /** Send back unchanged, with the signature, to POST /api/app/wallet/sign-in. */
  fields: WalletSignInFields;
}

export interface WalletSignInRequest {
  /** The challenge's fields plus the signature: 0x hex (EVM) or base58 (Solana). */
  payload: WalletSignInFields & { signature: string };
}

/** One accepted payment (x402 "exact" payment requirements, built by the server from its configuration). */
export interface WalletPaymentRequirement {
  scheme: 'exact';
  network: `${string}:${string}`;
  /** Token units (USDC: 6 decimals). */
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
}

/** An x402 PaymentRequired object for the chosen amount and chain: what the wallet signs a payment for. */
export interface WalletTopUpRequirements {
  x402Version: 2;
  resource: { url: string; description: string; mimeType: string };
  accepts: WalletPaymentRequirement[];
  minimumUsd: number;
  maximumUsd: number;
  /**
   * Solana only: the payment transaction the server built for the signed-in wallet (base64 wire format, its own and
   * the fee payer's signatures still empty). The wallet signs it as it stands: the browser reads no chain state.
   */
  transaction?: string;
}

export interface WalletTopUpRequest {
  /** The x402 v2 payment payload the wallet signed (as an x402 client makes it). */
  payment: Record<string, unknown>;
}

export interface WalletTopUpResponse {
  amountCreditedUsd: number;
  /** The wallet's USD balance after the credit. */
  balanceUsd: number;
  network: string;
  transaction: string;
}

/** The periods the usage dashboard offers, in days (ending now). */
export const USAGE_PERIODS = [7, 30, 90] as const;
export type UsagePeriod = (typeof USAGE_PERIODS)[number];

/** Requests, tokens and spend over some span (USD and DIEM; 1 DIEM buys 1 USD of inference). */
export interface UsageTotals {
  requests: number;
  promptTokens: number;
  completionTokens: number;
  usd: number;
  diem: number;
}

export interface UsageDay extends UsageTotals {
  /** UTC day, YYYY-MM-DD. */
  date: string;
}

export interface UsageModel extends UsageTotals {
  modelId: string;
}

/** One request: what it used and cost; never its content. */
export interface UsageRequest {
  /** Unix ms. */
  at: number;
  modelId: string;
  promptTokens: number;
  completionTokens: number;
  usd: number;
  diem: number;
  /** The description of the API key that made it ('browser app' for chats here); null when unknown. */
  via: string | null;
}

export interface UsageReport {
  days: UsagePeriod;
  /** The span reported, Unix ms: [from, to). Days are UTC days. */
  from: number;
  to: number;
  /**
   * 'billing': this server's ledger for the account (browser chats and every API key of the account).
   * 'chats': remote inference mode, where the provider bills the operator: the usage it reported for this user's chats.
   */
  source: 'billing' | 'chats';
  totals: UsageTotals;
  /** Every UTC day of the span, oldest first, zeros included. */
  byDay: UsageDay[];
  /** By spend, highest first. */
  byModel: UsageModel[];
  /** The latest requests of the span, newest first (at most 50). */
  recent: UsageRequest[];
}

/** One limit's budget now: the figure, what is left of it, and when the window refills (Unix ms). */
export interface RateMeter {
  limit: number;
  remaining: number;
  resetsAt: number;
}

export interface ModelRateLimits {
  modelId: string;
  name: string;
  /** The model's size class, which picks its figures. */
  sizeTier: string;
  requestsPerMinute: RateMeter;
  tokensPerMinute?: RateMeter;
  /** Requests per day, when the tier has a daily figure. */
  requestsPerDay?: number;
}

export interface RateLimitsReport {
  /** 'remote': limits are the external provider's, on the operator's key, and are not known here (models is empty). */
  mode: 'local' | 'remote';
  /** The account's rate-limit tier. */
  tier: 'default' | 'partner';
  /** The length of the "minute" window in seconds (60 in production). */
  windowSeconds: number;
  models: ModelRateLimits[];
}

/** An API key of the account as the browser may see it: metadata and spend only. */
export interface AppApiKey {
  id: string;
  description: string;
  type: 'INFERENCE' | 'ADMIN';
  /** The server-held key the browser app chats with. */
  browserApp: boolean;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  /** What requests with this key cost over the last 7 days. */
  lastSevenDays: { usd: number; diem: number };
  /** The key's spending cap and what it has spent in the cap's current period; null when uncapped. */
  cap: { usd: number | null; diem: number | null; period: 'EPOCH' | 'MONTH' | 'LIFETIME'; spentUsd: number; spentDiem: number } | null;
}
