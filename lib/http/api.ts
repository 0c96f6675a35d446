// The /api/v1 route table.
import { createKey, deleteKey, getKey, listKeys, updateKey } from './routes/api-keys.ts';
import { billingBalance, usageAnalytics, usageHistory } from './routes/billing.ts';
import { augmentScrape, augmentSearch, augmentTextParser } from './routes/augment.ts';
import { chatCompletions } from './routes/chat.ts';
import { embeddings } from './routes/embeddings.ts';
import { rateLimitLog, rateLimitStatus } from './routes/rate-limits.ts';
import { getCharacterRoute, listCharactersRoute } from './routes/characters.ts';
import { compatibilityMapping, imageStyles, listModels, modelTraits } from './routes/models.ts';
import { Router } from './router.ts';
import { siwxChallenge, topUp, walletBalance, walletTransactions } from './routes/x402.ts';

export function apiRouter(): Router {
  return new Router()
    .on('POST', '/chat/completions', chatCompletions)
    .on('POST', '/embeddings', embeddings)
    .on('POST', '/augment/search', augmentSearch)
    .on('POST', '/augment/scrape', augmentScrape)
    .on('POST', '/augment/text-parser', augmentTextParser)
    .on('GET', '/models', listModels)
    .on('GET', '/models/traits', modelTraits)
    .on('GET', '/models/compatibility_mapping', compatibilityMapping)
    .on('GET', '/image/styles', imageStyles)
    .on('GET', '/characters', listCharactersRoute)
    .on('GET', '/characters/:slug', getCharacterRoute)
    .on('GET', '/api_keys/rate_limits', rateLimitStatus)
    .on('GET', '/api_keys/rate_limits/log', rateLimitLog)
    .on('GET', '/api_keys', listKeys)
    .on('POST', '/api_keys', createKey)
    .on('PATCH', '/api_keys', updateKey)
    .on('DELETE', '/api_keys', deleteKey)
    .on('GET', '/api_keys/:id', getKey)
    .on('GET', '/billing/balance', billingBalance)
    .on('GET', '/billing/usage-history', usageHistory)
    .on('GET', '/billing/usage-analytics', usageAnalytics)
    .on('POST', '/x402/top-up', topUp)
    .on('GET', '/x402/balance/:walletAddress', walletBalance)
    .on('GET', '/x402/transactions/:walletAddress', walletTransactions)
    .on('GET', '/x402/siwx/challenge', siwxChallenge);
}
