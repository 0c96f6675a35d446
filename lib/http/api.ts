// The /api/v1 route table.
import { createKey, deleteKey, getKey, listKeys, updateKey } from './routes/api-keys.ts';
import { chatCompletions } from './routes/chat.ts';
import { getCharacterRoute, listCharactersRoute } from './routes/characters.ts';
import { compatibilityMapping, imageStyles, listModels, modelTraits } from './routes/models.ts';
import { Router } from './router.ts';

export function apiRouter(): Router {
  return new Router()
    .on('POST', '/chat/completions', chatCompletions)
    .on('GET', '/models', listModels)
    .on('GET', '/models/traits', modelTraits)
    .on('GET', '/models/compatibility_mapping', compatibilityMapping)
    .on('GET', '/image/styles', imageStyles)
    .on('GET', '/characters', listCharactersRoute)
    .on('GET', '/characters/:slug', getCharacterRoute)
    .on('GET', '/api_keys', listKeys)
    .on('POST', '/api_keys', createKey)
    .on('PATCH', '/api_keys', updateKey)
    .on('DELETE', '/api_keys', deleteKey)
    .on('GET', '/api_keys/:id', getKey);
}
