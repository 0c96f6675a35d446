// The browser app's route map: every /api/app route as `METHOD /path` → the handler that serves it. The server
// builds its router from it (lib/http/app.ts), and the browser's client (components/api/client.ts) reads its types:
// a call names a route of this map, and the compiler checks its path parameters, its JSON body and what it gets
// back against the handler itself. Type-only for the browser: nothing here runs there.
import type { AppRoutes } from './app-backend.ts';
import type { BodyOf, ReplyOf } from './app-route.ts';

export const APP_ROUTE_MAP = {
  'GET /auth/me': 'me',
  'POST /auth/sign-up': 'signUp',
  'POST /auth/sign-in': 'signIn',
  'POST /auth/sign-out': 'signOut',
  'GET /account': 'account',
  'PATCH /account/profile': 'updateProfile',
  'POST /account/password': 'changePassword',
  'GET /models': 'models',
  'GET /characters': 'characters',
  'POST /characters': 'createCharacter',
  'POST /characters/import': 'importCharacter',
  'POST /characters/preview': 'previewCharacter',
  'GET /characters/:slug': 'getCharacter',
  'PATCH /characters/:slug': 'updateCharacter',
  'DELETE /characters/:slug': 'deleteCharacter',
  'GET /characters/:slug/avatar': 'characterAvatar',
  'PUT /characters/:slug/avatar': 'putCharacterAvatar',
  'GET /characters/:slug/export': 'exportCharacter',
  'GET /characters/:slug/reviews': 'characterReviews',
  'PUT /characters/:slug/review': 'putCharacterReview',
  'DELETE /characters/:slug/review': 'deleteCharacterReview',
  'POST /operator/characters/:slug/unpublish': 'operatorUnpublishCharacter',
  'DELETE /operator/reviews/:id': 'operatorDeleteReview',
  'GET /limits': 'limits',
  'GET /conversations': 'listConversations',
  'POST /conversations': 'createConversation',
  'GET /conversations/:id': 'getConversation',
  'PATCH /conversations/:id': 'updateConversation',
  'DELETE /conversations/:id': 'deleteConversation',
  'GET /conversations/:id/export': 'exportConversation',
  'POST /conversations/:id/messages': 'sendMessage',
  'POST /messages/:id/regenerate': 'regenerate',
  'GET /private/vault': 'privateVault',
  'PUT /private/vault': 'createPrivateVault',
  'GET /private/attestation': 'privateAttestation',
  'GET /private/chats': 'listPrivateChats',
  'POST /private/chats': 'createPrivateChat',
  'GET /private/chats/:id': 'getPrivateChat',
  'PATCH /private/chats/:id': 'renamePrivateChat',
  'DELETE /private/chats/:id': 'deletePrivateChat',
  'POST /private/chats/:id/messages': 'appendPrivateTurn',
  'POST /private/completions': 'privateCompletion',
  'POST /messages/:id/stop': 'stopMessage',
  'GET /messages/:id/stream': 'streamMessage',
  'GET /search': 'search',
  'GET /usage': 'usage',
  'GET /rate-limits': 'rateLimits',
  'GET /keys': 'keys',
  'GET /billing/summary': 'billingSummary',
  'GET /billing/statement': 'billingStatement',
  'GET /billing/statement/export': 'billingExport',
  'GET /billing/receipts/:id': 'billingReceipt',
  'GET /api-keys': 'listApiKeys',
  'POST /api-keys': 'createApiKey',
  'PATCH /api-keys/:id': 'updateApiKey',
  'DELETE /api-keys/:id': 'revokeApiKey',
  'GET /rate-limits/models': 'rateLimitModels',
  'GET /rate-limits/log': 'rateLimitLog',
  'GET /operator/accounts': 'operatorAccounts',
  'POST /operator/accounts/:id/grant': 'operatorGrant',
  'PATCH /operator/accounts/:id': 'operatorUpdate',
  'GET /operator/audit': 'operatorAudit',
  'POST /operator/accounts/:id/reset-password': 'operatorResetPassword',
  'GET /operator/models': 'operatorModels',
  'POST /operator/models': 'operatorAddModel',
  'PATCH /operator/models/:id': 'operatorUpdateModel',
  'DELETE /operator/models/:id': 'operatorRemoveModel',
  'POST /operator/models/:id/test': 'operatorTestModel',
  'POST /operator/engines/test': 'operatorTestEngine',
  'GET /video/models': 'videoModels',
  'GET /video/quote': 'videoQuote',
  'GET /video/jobs': 'listVideoJobs',
  'POST /video/jobs': 'queueVideo',
  'GET /video/jobs/:id/media': 'videoMedia',
  'DELETE /video/jobs/:id': 'deleteVideoJob',
  'GET /audio/options': 'audioOptions',
  'POST /audio/speech': 'audioSpeech',
  'POST /audio/transcriptions': 'audioDictation',
  'GET /images/models': 'imageModels',
  'GET /images': 'listImages',
  'POST /images/generate': 'generateImages',
  'GET /images/:id': 'getImage',
  'GET /images/:id/file': 'imageFile',
  'POST /images/:id/vary': 'varyImage',
  'POST /images/:id/upscale': 'upscaleImage',
  'POST /images/:id/remove-background': 'removeImageBackground',
  'DELETE /images/:id': 'deleteImage',
  'GET /wallet/challenge': 'walletChallenge',
  'POST /wallet/sign-in': 'walletSignIn',
  'GET /wallet/top-up/requirements': 'walletTopUpRequirements',
  'POST /wallet/top-up': 'walletTopUp',
} as const satisfies Record<`${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /${string}`, keyof AppRoutes>;

export type AppRouteKey = keyof typeof APP_ROUTE_MAP;
type HandlerOf<K extends AppRouteKey> = AppRoutes[(typeof APP_ROUTE_MAP)[K]];

/** What route K answers, as JSON (undefined: 204; unknown: a file or a stream, not read as JSON). */
export type AppReply<K extends AppRouteKey> = ReplyOf<HandlerOf<K>>;
/** The JSON body route K takes (undefined: none). */
export type AppBody<K extends AppRouteKey> = BodyOf<HandlerOf<K>>;

type PathOf<K> = K extends `${string} ${infer P}` ? P : never;
type ParamNames<P> = P extends `${string}:${infer N}/${infer Rest}` ? N | ParamNames<`/${Rest}`> : P extends `${string}:${infer N}` ? N : never;
/** Route K's path parameters by name (`/images/:id` → { id: string }). */
export type AppParams<K extends AppRouteKey> = { [N in ParamNames<PathOf<K>>]: string };
