// Which server variables the operator's pages may name as an upstream's key. A variable is sent as a Bearer token to
// the URL the form gives, so naming DATABASE_URL, the x402 hot wallet's key or LAGOON_RPC_UPSTREAMS would hand it to
// any server (issue 28). Only variables made for the purpose qualify: those named with the fixed prefix, and those the
// catalogue file already gives a model as its key (the operator put them there). Anything else is a 400.
import { ApiError } from '../api/errors.ts';
import type { Catalogue } from '../models/catalogue.ts';

export const UPSTREAM_KEY_PREFIX = 'LAGOON_UPSTREAM_KEY_';

/** The key variables the catalogue file names (its own models, not the ones added from the browser). */
export function fileKeyVars(catalogue: Pick<Catalogue, 'file'>): Set<string> {
  const names = new Set<string>();
  for (const m of catalogue.file.models) {
    const engine = m.engine as { apiKeyEnv?: unknown };
    if (typeof engine.apiKeyEnv === 'string') names.add(engine.apiKeyEnv);
  }
  return names;
}

export const keyVarAllowed = (name: string, fileVars: ReadonlySet<string>): boolean =>
  (name.startsWith(UPSTREAM_KEY_PREFIX) && name.length > UPSTREAM_KEY_PREFIX.length) || fileVars.has(name);

/** 400 naming apiKeyEnv when the name is not one an upstream key may come from. */
export function refuseKeyVar(name: string | undefined, catalogue: Pick<Catalogue, 'file'>): void {
  if (name === undefined || keyVarAllowed(name, fileKeyVars(catalogue))) return;
  throw new ApiError(
    'INVALID_REQUEST',
    `${name} is not a variable for upstream keys: name one ${UPSTREAM_KEY_PREFIX}<NAME> (or one the catalogue file already uses), or store the key instead`,
    { param: 'apiKeyEnv' },
  );
}
