// What the browser app's backend is built from: the service (store, ledger, catalogue, engines, limits) and the
// app's settings (Config.app), among them where inference runs (this server, or INFERENCE_BASE_URL with
// INFERENCE_API_KEY).
import type { AppConfig } from '../config.ts';
import type { Service } from '../service.ts';

export interface AppDeps {
  svc: Service;
  /** The app's settings: svc.config.app, or another configuration's in tests. */
  app: AppConfig;
}
