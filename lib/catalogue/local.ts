// The app's models and characters from this server's own catalogue and character table.
import { ApiError } from '../api/errors.ts';
import { getCharacter, listCharacters } from '../characters/characters.ts';
import { resolveModel } from '../models/catalogue.ts';
import type { ModelEntry } from '../models/schema.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appDefaultModel, type CatalogueSource, characterToApp, checkCharacterQuery, modelToApp } from './source.ts';

export function localCatalogue(deps: AppDeps): CatalogueSource {
  const { svc } = deps;
  const textModels = () => svc.catalogue.models.filter((m) => m.type === 'text');
  const defaultId = () => appDefaultModel(textModels())?.id;
  const toApp = (m: ModelEntry) => modelToApp(m, m.id === defaultId(), svc.searchAvailable, svc.engineHealth.status(m.id)?.reason);
  return {
    async models() {
      return textModels().map(toApp);
    },
    async characters(q) {
      const search = checkCharacterQuery(q);
      const list = await listCharacters(svc.store, { search: search || undefined, limit: 500, offset: 0 });
      return list.map(characterToApp);
    },
    async model(name) {
      const m = resolveModel(svc.catalogue, name, 'text');
      if (m.type !== 'text') throw new ApiError('MODEL_NOT_FOUND', `"${name}" is not a chat model`);
      return toApp(m);
    },
    async character(slug) {
      const c = await getCharacter(svc.store, slug);
      if (!c) throw new ApiError('CHARACTER_NOT_FOUND', `Character "${slug}" not found`);
      return characterToApp(c);
    },
  };
}
