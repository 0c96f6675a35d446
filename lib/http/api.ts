// The /api/v1 route table.
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
    .on('GET', '/characters/:slug', getCharacterRoute);
}
