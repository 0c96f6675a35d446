// The browser app's own JSON API (served under /api/app by the lean HTTP layer, lib/http/app.ts): the shapes the
// server sends and the client reads. Types only, so the React client can import them without pulling server code.
//
// Routes (all JSON unless noted; every non-GET needs the session's CSRF token in `x-csrf-token`; errors use the
// service's error body `{ error, code, ... }` with its status; 401 `AUTHENTICATION_FAILED` without a session):
//   GET    /api/app/auth/me                              → MeResponse (401 when signed out)
//   POST   /api/app/auth/sign-up   {email,password,displayName?} → MeResponse + Set-Cookie
//   POST   /api/app/auth/sign-in   {email,password}      → MeResponse + Set-Cookie
//   POST   /api/app/auth/sign-out                        → 204, cookie cleared
//          sign-in answers SecondFactorRequired ({secondFactor:'totp',challenge}, no cookie) when the user has TOTP:
//   POST   /api/app/auth/sign-in/second-factor {challenge,code} → MeResponse + Set-Cookie (code: TOTP or recovery code)
//   GET    /api/app/auth/recovery                        → RecoveryInfo ({mail}: whether reset by mail is on)
//   POST   /api/app/auth/password-reset {email}          → 202 {sent:true} whether or not the account exists (404 when off)
//   POST   /api/app/auth/password-reset/confirm {token,password} → 204 (every session of the user ended)
//   GET    /api/app/account/email                        → EmailStatus ({email, verified, mail})
//   POST   /api/app/account/email/verify                 → 202 {sent:true}: a verification link is mailed (404 when off)
//   POST   /api/app/auth/verify-email {token}            → 204 (the address is verified)
//   GET    /api/app/account/two-factor                   → TwoFactorInfo
//   POST   /api/app/account/two-factor/totp              → TotpEnrolment (409 without a secrets key)
//   POST   /api/app/account/two-factor/totp/confirm {code} → RecoveryCodes (shown once)
//   POST   /api/app/account/two-factor/totp/disable {code} → 204
//   GET    /api/app/account/passkeys                     → PasskeyList
//   POST   /api/app/account/passkeys/options             → WebAuthn registration options (JSON)
//   POST   /api/app/account/passkeys {response,name?}    → PasskeySummary (201)
//   DELETE /api/app/account/passkeys/:id                 → 204
//   POST   /api/app/auth/passkey/options                 → WebAuthn sign-in options (discoverable credentials)
//   POST   /api/app/auth/passkey {response}              → MeResponse + Set-Cookie (a passkey alone signs in)
//   GET    /api/app/auth/sso                             → SsoInfo ({enabled, name}: single sign-on's button)
//   GET    /api/app/auth/sso/start?next=                 → 303 to the OpenID provider (state cookie set)
//   GET    /api/app/auth/sso/callback?code=&state=       → 303 to next + Set-Cookie, or to /sign-in?sso_error=<reason>
//   GET    /api/app/account/sso                          → SsoIdentities (the provider identities linked to the user)
//   POST   /api/app/account/sso/link                     → SsoLinkStart ({url}: go there to link the provider)
//   POST   /api/app/account/email {email,password}       → EmailLoginAdded (a wallet user adds an email sign-in)
//   POST   /api/app/account/wallet WalletSignInRequest   → MeResponse (an email user links the signing wallet)
//   DELETE /api/app/account/wallet                       → MeResponse (the wallet gets an empty account of its own)
//   GET    /api/app/account/sign-in-methods              → SignInMethods (email, password, wallet, SSO, passkeys)
//   GET    /api/app/models                               → AppModelsResponse ({ models, webSearch: {available, reason} })
//   GET    /api/app/characters?q=                        → { characters: AppCharacter[] }
//   GET    /api/app/account                              → AccountSummary
//   GET    /api/app/conversations?cursor=&limit=&folder=<id>|none&pinned=0|1&archived=0|1 → { items: AppConversation[], nextCursor }
//          (archived chats only with archived=1)
//   POST   /api/app/conversations {modelId?,characterSlug?,settings?} → AppConversation (201)
//   GET    /api/app/conversations/:id                    → AppConversationWithMessages (all branches)
//   PATCH  /api/app/conversations/:id {title?,modelId?,settings?(patch; null removes),folderId?,pinned?,archived?} → AppConversation
//   DELETE /api/app/conversations/:id                    → 204
//   GET    /api/app/conversations/:id/export?format=md|json&leaf=&branches=all → a download (Content-Disposition): the
//          branch through leaf (continued to its newest turn) or the newest; branches=all (JSON only): every version
//   GET    /api/app/conversations/archive                → a zip download: every chat as JSON (all branches) and Markdown
//   POST   /api/app/conversations/:id/shares {leafId}    → AppShare (201): a snapshot of the branch through leafId
//   GET    /api/app/shares?conversation=                 → AppShareList (the user's share links, newest first)
//   DELETE /api/app/shares/:token                        → 204 (the link and its snapshot are gone)
//   GET    /api/app/shares/:token                        → AppSharedChat (no session needed; 404 once revoked)
//   GET    /api/app/shares/:token/files/:n               → an image of the snapshot (no session needed)
//   POST   /api/app/shares/:token/continue               → AppConversation (201): the snapshot copied into a new chat
//   POST   /api/app/chat/temporary  TemporaryTurnRequest  → SendMessageResponse-like (201); nothing is stored
//   GET    /api/app/search?q=&folder=                    → { hits: AppSearchHit[] } (archived chats too)
//   GET    /api/app/folders                              → AppFolderList;  POST /api/app/folders {name} → AppFolder (201)
//   PATCH  /api/app/folders/:id {name} → AppFolder;  DELETE /api/app/folders/:id → 204 (its chats move out, kept)
//   GET    /api/app/memories                             → AppMemoryList (the user's memories, oldest first)
//   POST   /api/app/memories  CreateMemoryRequest        → AppMemory (201; 200 when already saved from that message)
//   PATCH  /api/app/memories/:id  UpdateMemoryRequest    → AppMemory;  DELETE /api/app/memories/:id → 204
//   GET    /api/app/memories/export                      → a JSON download of every memory
//   GET    /api/app/prompts                              → AppPromptList (the user's own prompts, then the shared ones)
//   POST   /api/app/prompts  PromptInput                 → AppPrompt (201);  PATCH /api/app/prompts/:id  PromptPatch → AppPrompt
//   DELETE /api/app/prompts/:id                          → 204 (the user's own only; a shared one is 404 here)
//   POST|PATCH|DELETE /api/app/operator/prompts[/:id]    → the shared prompts (the operator only)
//   POST   /api/app/conversations/:id/messages  SendMessageRequest → SendMessageResponse (201); generation starts
//   POST   /api/app/messages/:id/regenerate  {modelId?}  → { assistant: AppMessage } (201): a new sibling answer
//          (these two and /chat/temporary with Accept: text/event-stream: a TurnEvent, then the answer's
//          GenerationEvents on the same response, as the browser asks them)
//   POST   /api/app/messages/:id/stop                    → { message: AppMessage } (the partial answer, kept)
//   GET    /api/app/messages/:id/stream                  → text/event-stream of GenerationEvent (attach/reattach)
//   GET    /api/app/limits                               → AttachmentLimits
//   GET    /api/app/tools                                → AppToolsResponse (the MCP servers a chat may switch on: settings.tools)
//   PUT    /api/app/tools/:id/headers  UserToolHeadersRequest → 204 (the user's own headers for a server, sealed)
//   GET|POST /api/app/operator/mcp-servers, PATCH|DELETE …/:id, POST …/:id/test → the operator's MCP servers
//   GET    /api/app/wallet/challenge?address=&chain=evm|solana → WalletChallenge (a fresh single-use sign-in challenge)
//   POST   /api/app/wallet/sign-in  WalletSignInRequest   → MeResponse + Set-Cookie (no CSRF token yet: Origin-checked)
//   GET    /api/app/wallet/top-up/requirements?amount=&chain= → WalletTopUpRequirements (wallet users only)
//   POST   /api/app/wallet/top-up   WalletTopUpRequest    → WalletTopUpResponse (wallet users only; payer = the user's wallet)
//   GET    /api/app/usage?days=7|30|90                   → UsageReport (the session user's own account only)
//   GET    /api/app/rate-limits                          → RateLimitsReport (read without consuming anything)
//   GET    /api/app/keys                                 → { keys: AppApiKey[] } (metadata only: never a secret, hash or last characters)
//   GET    /api/app/billing/summary                      → BillingSummary (balances, spend, projection, chart series)
//   GET    /api/app/billing/statement?from=&to=&keyId=&modelId=&kind=&page=&limit= → StatementPage
//   GET    /api/app/billing/statement/export?format=csv|json&(the same filters) → a download of every matching entry
//   GET    /api/app/api-keys                             → ApiKeysReport
//   POST   /api/app/api-keys  CreateApiKeyRequest        → CreatedApiKey (201; the secret, this once)
//   PATCH  /api/app/api-keys/:id  UpdateApiKeyRequest    → { key: AppApiKey }
//   DELETE /api/app/api-keys/:id                         → { key: AppApiKey } (revoked)
//   GET    /api/app/rate-limits/models?keyId=            → LimitsReport (every model, for one of the account's keys)
//   GET    /api/app/rate-limits/log?keyId=&modelId=&type=&from=&to=&page=&limit= → BreachPage
//   GET    /api/app/alerts                               → AlertSettingsView (thresholds, channels, webhook secret)
//   PUT    /api/app/alerts  AlertSettingsInput           → AlertSettingsView (400 for a webhook URL that may not be reached)
//   POST   /api/app/alerts/secret                        → AlertSettingsView (a new webhook signing secret)
//   POST   /api/app/alerts/test                          → 202 AlertTestSent (409 when no channel is set)
//   GET    /api/app/alerts/deliveries?page=&limit=       → AlertDeliveryPage (the delivery log, newest first)
//   GET    /api/app/teams                                → TeamsView (the active account and the user's teams)
//   POST   /api/app/teams  { name }                      → TeamSummary (201; a team owned by the user)
//   POST   /api/app/teams/switch  { accountId|null }     → TeamsView (this session acts for that team, or the user's own)
//   GET    /api/app/teams/:id                            → TeamDetail (admins: every member and invite)
//   PATCH  /api/app/teams/:id/members/:userId  { role?, capUsd?, capPeriod?, models? } → TeamMemberView
//   DELETE /api/app/teams/:id/members/:userId           → 204 (removed, or left)
//   POST   /api/app/teams/:id/invites  { role, email? }  → CreatedInvite (201; the link once, mailed with SMTP)
//   DELETE /api/app/teams/:id/invites/:inviteId         → 204
//   POST   /api/app/teams/invites/accept  { token }     → TeamsView (the session now acts for the team)
//   POST   /api/app/teams/:id/transfer  { id, direction, usd } → TransferResult (the owner; exactly once per id)
//   GET    /api/app/operator/accounts?q=&page=&limit=    → OperatorAccountsPage (the operator only)
//   POST   /api/app/operator/accounts/:id/grant  OperatorGrantRequest → { account: OperatorAccount }
//   PATCH  /api/app/operator/accounts/:id  OperatorAccountPatch → { account: OperatorAccount }
//   GET    /api/app/operator/audit?accountId=&page=&limit= → OperatorAuditPage
//   POST   /api/app/operator/accounts/:id/reset-password → PasswordReset (a temporary password, shown once)
//   POST   /api/app/operator/accounts/:id/clear-second-factor → SecondFactorCleared (TOTP and passkeys removed)
//   GET    /api/app/operator/models                      → OperatorModelsPage (POST, PATCH /:id, DELETE /:id,
//          POST /:id/test, POST /operator/engines/test: see lib/operator/wire-models.ts)
//   PUT    /api/app/operator/default-model {modelId|null} → OperatorDefaultModel (the model new chats start on)
//   PATCH  /api/app/account/profile {displayName}        → ProfileResponse
//   POST   /api/app/account/password {currentPassword,newPassword} → PasswordChanged (other sessions ended)
//
// The shapes live in each capability's wire.ts (lib/chat/wire.ts, lib/keys/wire.ts, …); this barrel re-exports them
// all so importers keep one path.

export type * from './account/wire.ts';
export type * from './keys/wire.ts';
export type * from './billing/wire.ts';
export type * from './limits/wire.ts';
export type * from './operator/wire.ts';
export type * from './operator/wire-models.ts';
export type * from './account/wire-settings.ts';
export type * from './catalogue/wire.ts';
export type * from './characters/wire.ts';
export type * from './chat/wire.ts';
export type * from './chat/wire-private.ts';
export type * from './conversations/wire.ts';
export type * from './conversations/wire-shares.ts';
export type * from './knowledge/wire.ts';
export type * from './keys/wire-list.ts';
export type * from './limits/wire-rate-limits.ts';
export type * from './billing/wire-usage.ts';
export type * from './wallet/wire.ts';
export type * from './memory/wire.ts';
export type * from './prompts/wire.ts';
export type * from './tools/wire.ts';
export type * from './alerts/wire.ts';
export type * from './teams/wire.ts';
// The one value: the usage dashboard's period options, shared by the route's check and the page's switcher.
export { USAGE_PERIODS } from './billing/wire-usage.ts';
