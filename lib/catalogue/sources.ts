// Where the app's model and character lists come from: this server's own catalogue, or — in remote mode
// (INFERENCE_BASE_URL, with INFERENCE_API_KEY) — the remote API's, fetched on the server with the server-held key.
// Both answer "does this model / character exist" for the conversation routes too.
import type { AppDeps } from '../http/app-deps.ts';
import type { CatalogueSource } from './source.ts';
import { localCatalogue } from './local.ts';
import { remoteCatalogue } from './remote.ts';
import { readDefaultModel, withDefault } from './default-model.ts';

/** True when chats go to an external API (INFERENCE_BASE_URL) rather than this server's own engines. */
export const isRemote = (deps: AppDeps): boolean => deps.app.remote !== undefined;

/**
 * Why chats here cannot search the web (null when they can): locally, no search provider is configured; a remote
 * API decides for itself. The app hides its web search choice with this reason, and the conversation routes refuse
 * "on" with it, so a chat is never created that every message would fail in.
 */
export const webSearchUnavailable = (deps: AppDeps): string | null =>
  isRemote(deps) || deps.svc.searchAvailable
    ? null
    : 'Web search is not set up on this server: its operator sets LAGOON_SEARCH_PROVIDER (SearXNG or Brave) to turn it on.';

// One source per backend: the conversation and catalogue routes share its remote cache.
const sources = new WeakMap<AppDeps, CatalogueSource>();

export function catalogueSource(deps: AppDeps): CatalogueSource {
  let s = sources.get(deps);
  if (!s) {
    const { remote } = deps.app;
    s = withOperatorDefault(deps, remote ? remoteCatalogue(remote) : localCatalogue(deps));
    sources.set(deps, s);
  }
  return s;
}

/** The source with the operator's chosen default model flagged (lib/catalogue/default-model.ts), where it is served. */
function withOperatorDefault(deps: AppDeps, base: CatalogueSource): CatalogueSource {
  const { store } = deps.svc;
  const models = async () => {
    const [list, chosen] = await Promise.all([base.models(), readDefaultModel(store)]);
    return withDefault(list, chosen);
  };
  return {
    ...base,
    models,
    async model(name) {
      const m = await base.model(name);
      // Flagged against the whole list, so a chosen model no longer served leaves the built-in default flagged.
      return (await models()).find((x) => x.id === m.id) ?? m;
    },
  };
}
