// What the browser app's backend is built from: the service (store, ledger, catalogue, engines, limits) and the
// environment that chooses where inference runs (this server, or INFERENCE_BASE_URL with INFERENCE_API_KEY).
import type { Env } from '../config.ts';
import type { Service } from '../service.ts';

export interface AppDeps {
  svc: Service;
  env: Env;
}
