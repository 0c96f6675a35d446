// The /api/v1 route table. Each route declares who may call it and which budget it draws on; the server runs those
// checks in one order for every route (abuse block → authentication → budget) before the handler, which then reads
// `ctx.principal` (and `ctx.wallet`) instead of authenticating by hand.
import { createKey, deleteKey, getKey, listKeys, updateKey } from './routes/api-keys.ts';
import { billingBalance, usageAnalytics, usageHistory } from './routes/billing.ts';
import { augmentScrape, augmentSearch, augmentTextParser } from './routes/augment.ts';
import { chatCompletions } from './routes/chat.ts';
import { embeddings } from './routes/embeddings.ts';
import { rateLimitLog, rateLimitStatus } from './routes/rate-limits.ts';
import { getCharacterRoute, listCharactersRoute } from './routes/characters.ts';
import { compatibilityMapping, imageStyles, listModels, modelTraits } from './routes/models.ts';
import type { ApiRoute } from './route.ts';
import { Router } from './router.ts';
import { siwxChallenge, topUp, walletBalance, walletTransactions } from './routes/x402.ts';

export const API_PREFIX = '/api/v1';

export function apiRouter(): Router<ApiRoute> {
  const r = new Router<ApiRoute>(API_PREFIX);
  const on = (method: string, path: string, route: ApiRoute) => r.add(method, path, route);
  // Inference: a key or a signed-in wallet (no credential: the x402 discovery 402); admitted per model by the pipeline.
  on('POST', '/chat/completions', { auth: 'caller', limit: 'model', handler: chatCompletions });
  on('POST', '/embeddings', { auth: 'caller', limit: 'model', handler: embeddings });
  // Paid per call, from the key's management budget.
  on('POST', '/augment/search', { auth: 'key', limit: 'api', handler: augmentSearch });
  on('POST', '/augment/scrape', { auth: 'key', limit: 'api', handler: augmentScrape });
  on('POST', '/augment/text-parser', { auth: 'key', limit: 'api', handler: augmentTextParser });
  // Public catalogue.
  on('GET', '/models', { auth: 'none', limit: 'none', handler: listModels });
  on('GET', '/models/traits', { auth: 'none', limit: 'none', handler: modelTraits });
  on('GET', '/models/compatibility_mapping', { auth: 'none', limit: 'none', handler: compatibilityMapping });
  on('GET', '/image/styles', { auth: 'none', limit: 'none', handler: imageStyles });
  on('GET', '/characters', { auth: 'key', limit: 'api', handler: listCharactersRoute });
  on('GET', '/characters/:slug', { auth: 'key', limit: 'api', handler: getCharacterRoute });
  // Account management.
  on('GET', '/api_keys/rate_limits', { auth: 'key', limit: 'api', handler: rateLimitStatus });
  on('GET', '/api_keys/rate_limits/log', { auth: 'admin', limit: 'api', handler: rateLimitLog });
  on('GET', '/api_keys', { auth: 'admin', limit: 'api', handler: listKeys });
  on('POST', '/api_keys', { auth: 'admin', limit: 'api', handler: createKey });
  on('PATCH', '/api_keys', { auth: 'admin', limit: 'api', handler: updateKey });
  on('DELETE', '/api_keys', { auth: 'admin', limit: 'api', handler: deleteKey });
  on('GET', '/api_keys/:id', { auth: 'admin', limit: 'api', handler: getKey });
  on('GET', '/billing/balance', { auth: 'admin', limit: 'api', beta: true, handler: billingBalance });
  on('GET', '/billing/usage-history', { auth: 'admin', limit: 'api', beta: true, handler: usageHistory });
  on('GET', '/billing/usage-analytics', { auth: 'admin', limit: 'api', beta: true, handler: usageAnalytics });
  // Wallets: top-ups and challenges are open to anyone (limited per client IP); statements need the wallet's sign-in.
  on('POST', '/x402/top-up', { auth: 'none', limit: 'ip', handler: topUp });
  on('GET', '/x402/balance/:walletAddress', { auth: 'wallet', limit: 'api', handler: walletBalance });
  on('GET', '/x402/transactions/:walletAddress', { auth: 'wallet', limit: 'api', handler: walletTransactions });
  on('GET', '/x402/siwx/challenge', { auth: 'none', limit: 'ip', handler: siwxChallenge });
  return r;
}
