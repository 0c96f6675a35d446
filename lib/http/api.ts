// The /api/v1 route table. Each route declares who may call it, which budget it draws on and what it reads (its query
// and body schemas, or a body of its own); the server runs those checks in one order for every route (abuse block →
// authentication → budget → query and body) before the handler, which then reads `ctx.principal` (and `ctx.wallet`)
// and its typed input instead of authenticating and validating by hand.
import { createKey, createWeb3Key, deleteKey, deleteKeyQuery, getKey, listKeys, updateKey, web3KeyBody, web3KeyToken } from '../keys/api-routes.ts';
import { createKeyBody, patchKeyBody } from '../auth/key-input.ts';
import { analyticsQuery, balanceQuery, billingBalance, historyParams, retiredUsage, usageAnalytics, usageHistory } from '../billing/api-routes.ts';
import { augmentScrape, augmentSearch, augmentTextParser, scrapeBody, searchBody } from '../augment/api-routes.ts';
import { chatCompletions } from '../chat/api-routes.ts';
import { attestationQuery, signatureQuery, teeAttestation, teeSignature } from '../e2ee/api-routes.ts';
import { responses } from '../responses/api-routes.ts';
import { embeddings } from '../embeddings/api-routes.ts';
import { imageBackgroundRemove, imageEdit, imageGenerate, imageMultiEdit, imagesGenerations, imageUpscale } from '../images/api-routes.ts';
import { audioSpeech, audioTranscriptions, audioVoices, videoTranscriptions } from '../audio/api-routes.ts';
import { audioJobs } from '../audio/api-job-routes.ts';
import { video } from '../video/api-routes.ts';
import { rpcCall, rpcNetworks } from '../crypto-rpc/api-routes.ts';
import { rateLimitLog, rateLimitStatus } from '../limits/api-routes.ts';
import { characterPhotoRoute, characterReviewsRoute, charactersQuery, getCharacterRoute, listCharactersRoute, reviewsQuery } from '../characters/api-routes.ts';
import { compatibilityMapping, imageStyles, listModels, modelsQuery, modelTraits, typeOfModelQuery } from '../catalogue/api-routes.ts';
import { type ApiRoute, apiRoute } from './route.ts';
import { receiptRoute } from '../billing/api-receipts.ts';
import { Router } from './router.ts';
import {
  autoTopUpQuery,
  cancelAutoTopUps,
  deleteAutoTopUp,
  getAutoTopUp,
  putAutoTopUp,
  siwxChallenge,
  topUp,
  topUpQuery,
  transactionsQuery,
  walletBalance,
  walletTransactions,
} from '../wallet/api-routes.ts';
import { autoTopUpBody } from '../wallet/auto-topup.ts';
import { cancelBody } from '../wallet/auto-topup-cancel.ts';

export const API_PREFIX = '/api/v1';

export function apiRouter(): Router<ApiRoute> {
  const r = new Router<ApiRoute>(API_PREFIX);
  const on = <B = undefined, Q = undefined>(method: string, path: string, route: Parameters<typeof apiRoute<B, Q>>[0]) =>
    r.add(method, path, apiRoute<B, Q>(route));
  // Inference: a key or a signed-in wallet (no credential: the x402 discovery 402); admitted per model by the pipeline.
  on('POST', '/chat/completions', { auth: 'caller', limit: 'model', body: 'own', billed: true, handler: chatCompletions });
  on('GET', '/tee/attestation', { auth: 'none', limit: 'ip', query: attestationQuery, handler: teeAttestation });
  on('GET', '/tee/signature', { auth: 'key', limit: 'api', query: signatureQuery, handler: teeSignature });
  on('POST', '/responses', { auth: 'caller', limit: 'model', body: 'own', billed: true, handler: responses });
  on('POST', '/embeddings', { auth: 'caller', limit: 'model', body: 'own', billed: true, handler: embeddings });
  // Images: billed per image (by model, size and steps); edit, upscale and background removal also take multipart.
  on('POST', '/image/generate', { auth: 'caller', limit: 'model', body: 'own', billed: true, handler: imageGenerate });
  on('POST', '/images/generations', { auth: 'caller', limit: 'model', body: 'own', billed: true, handler: imagesGenerations });
  on('POST', '/image/edit', { auth: 'caller', limit: 'model', body: 'own', billed: true, handler: imageEdit });
  on('POST', '/image/multi-edit', { auth: 'caller', limit: 'model', body: 'own', billed: true, handler: imageMultiEdit });
  on('POST', '/image/upscale', { auth: 'caller', limit: 'model', body: 'own', billed: true, handler: imageUpscale });
  on('POST', '/image/background-remove', { auth: 'caller', limit: 'model', body: 'own', billed: true, handler: imageBackgroundRemove });
  // Audio: speech billed per character, transcription per second; cloning answers 400 (no engine here clones).
  on('POST', '/audio/speech', { auth: 'caller', limit: 'model', body: 'own', billed: true, handler: audioSpeech });
  on('POST', '/audio/transcriptions', { auth: 'caller', limit: 'model', body: 'own', billed: true, handler: audioTranscriptions });
  on('POST', '/audio/voices', { auth: 'caller', limit: 'model', body: 'own', handler: audioVoices });
  on('POST', '/video/transcriptions', { auth: 'caller', limit: 'model', body: 'own', billed: true, handler: videoTranscriptions });
  // Long audio jobs (lib/jobs, like video's): a text up to LAGOON_AUDIO_QUEUE_MAX_CHARACTERS spoken into one file.
  on('POST', '/audio/quote', { auth: 'key', limit: 'api', body: 'own', handler: audioJobs.quote });
  on('POST', '/audio/queue', { auth: 'caller', limit: 'model', body: 'own', billed: true, handler: audioJobs.queue });
  on('POST', '/audio/retrieve', { auth: 'caller', limit: 'model', body: 'own', handler: audioJobs.retrieve });
  on('POST', '/audio/complete', { auth: 'caller', limit: 'model', body: 'own', handler: audioJobs.complete });
  // Video jobs (lib/jobs): the quote is free and Bearer only; queue, retrieve and complete are admitted per model
  // (the queue and retrieve budgets).
  on('POST', '/video/quote', { auth: 'key', limit: 'api', body: 'own', handler: video.quote });
  on('POST', '/video/queue', { auth: 'caller', limit: 'model', body: 'own', billed: true, handler: video.queue });
  on('POST', '/video/retrieve', { auth: 'caller', limit: 'model', body: 'own', handler: video.retrieve });
  on('POST', '/video/complete', { auth: 'caller', limit: 'model', body: 'own', handler: video.complete });
  // Paid per call, from the key's management budget.
  on('POST', '/augment/search', { auth: 'key-or-wallet', limit: 'api', body: searchBody, billed: true, handler: augmentSearch });
  on('POST', '/augment/scrape', { auth: 'key-or-wallet', limit: 'api', body: scrapeBody, billed: true, handler: augmentScrape });
  on('POST', '/augment/text-parser', { auth: 'key-or-wallet', limit: 'api', body: 'own', billed: true, handler: augmentTextParser });
  // Public catalogue.
  on('GET', '/models', { auth: 'none', limit: 'none', query: modelsQuery, handler: listModels });
  on('GET', '/models/traits', { auth: 'none', limit: 'none', query: typeOfModelQuery, handler: modelTraits });
  on('GET', '/models/compatibility_mapping', { auth: 'none', limit: 'none', query: typeOfModelQuery, handler: compatibilityMapping });
  on('GET', '/image/styles', { auth: 'none', limit: 'none', handler: imageStyles });
  on('GET', '/characters', { auth: 'key', limit: 'api', query: charactersQuery, handler: listCharactersRoute });
  on('GET', '/characters/:slug', { auth: 'key', limit: 'api', handler: getCharacterRoute });
  on('GET', '/characters/:slug/reviews', { auth: 'key', limit: 'api', query: reviewsQuery, handler: characterReviewsRoute });
  // A published character's avatar, open to anyone (the records' photoUrl), budgeted per client IP.
  on('GET', '/characters/:slug/photo', { auth: 'none', limit: 'ip', handler: characterPhotoRoute });
  // Account management.
  on('GET', '/api_keys/rate_limits', { auth: 'key', limit: 'api', handler: rateLimitStatus });
  on('GET', '/api_keys/rate_limits/log', { auth: 'admin', limit: 'api', handler: rateLimitLog });
  on('GET', '/api_keys', { auth: 'admin', limit: 'api', handler: listKeys });
  on('POST', '/api_keys', { auth: 'admin', limit: 'api', body: createKeyBody, handler: createKey });
  on('PATCH', '/api_keys', { auth: 'admin', limit: 'api', body: patchKeyBody, handler: updateKey });
  on('DELETE', '/api_keys', { auth: 'admin', limit: 'api', query: deleteKeyQuery, body: 'own', handler: deleteKey });
  // Web3 keys: no credential (the wallet's signature over a server token is the proof), limited per client IP.
  on('GET', '/api_keys/generate_web3_key', { auth: 'none', limit: 'ip', handler: web3KeyToken });
  on('POST', '/api_keys/generate_web3_key', { auth: 'none', limit: 'ip', body: web3KeyBody, handler: createWeb3Key });
  on('GET', '/api_keys/:id', { auth: 'admin', limit: 'api', handler: getKey });
  on('GET', '/billing/balance', { auth: 'admin', limit: 'api', beta: true, query: balanceQuery, handler: billingBalance });
  on('GET', '/billing/usage-history', { auth: 'admin', limit: 'api', beta: true, query: historyParams, handler: usageHistory });
  // A billed request's signed receipt (lib/billing/receipts.ts): the account's, or an INFERENCE key's own.
  on('GET', '/billing/receipts/:requestId', { auth: 'key-or-wallet', limit: 'api', handler: receiptRoute });
  on('GET', '/billing/usage-analytics', { auth: 'admin', limit: 'api', beta: true, query: analyticsQuery, handler: usageAnalytics });
  // Retired by the public API: always 410 with its successor (open to anyone, as there; limited per client IP).
  on('GET', '/billing/usage', { auth: 'none', limit: 'ip', handler: retiredUsage });
  // Wallets: top-ups and challenges are open to anyone (limited per client IP); statements need the wallet's sign-in.
  on('POST', '/x402/top-up', { auth: 'none', limit: 'ip', query: topUpQuery, body: 'none', handler: topUp });
  on('GET', '/x402/balance/:walletAddress', { auth: 'wallet', limit: 'api', handler: walletBalance });
  on('GET', '/x402/transactions/:walletAddress', { auth: 'wallet', limit: 'api', query: transactionsQuery, handler: walletTransactions });
  on('GET', '/x402/siwx/challenge', { auth: 'none', limit: 'ip', handler: siwxChallenge });
  // Auto top-up (lib/wallet/auto-topup.ts): the signed-in wallet's own mandate and pre-signed authorizations.
  on('GET', '/x402/auto-top-up', { auth: 'wallet', limit: 'api', query: autoTopUpQuery, handler: getAutoTopUp });
  on('PUT', '/x402/auto-top-up', { auth: 'wallet', limit: 'api', body: autoTopUpBody, handler: putAutoTopUp });
  on('DELETE', '/x402/auto-top-up', { auth: 'wallet', limit: 'api', body: 'none', handler: deleteAutoTopUp });
  on('POST', '/x402/auto-top-up/cancel', { auth: 'wallet', limit: 'api', body: cancelBody, handler: cancelAutoTopUps });
  // The crypto JSON-RPC proxy: the network list is public; calls are paid in credits by a key or a wallet, and the
  // proxy admits them per caller (requests per minute, credits per 24 h).
  on('GET', '/crypto/rpc/networks', { auth: 'none', limit: 'none', handler: rpcNetworks });
  on('POST', '/crypto/rpc/:network', { auth: 'caller', limit: 'rpc', body: 'own', handler: rpcCall });
  return r;
}
