// The operator's default model for new chats, chosen on the operator's models page and kept in the database
// (app_settings, migration 34), so it survives a restart and every instance on a shared database reads the same
// choice (it is read per request: one primary-key lookup). The app's model list flags it as the default, and so
// every place that starts a chat without naming a model starts on it. A choice that is no longer served (disabled or
// removed since) is ignored, not cleared: the built-in default (appDefaultModel: the catalogue's default, a real
// model before the demo one) takes over until the operator enables it again or chooses another.
import type { Store } from '../db/store.ts';
import type { AppModel } from './wire.ts';

const NAME = 'default_model';

/** The operator's chosen default model id, or null when none is chosen. */
export async function readDefaultModel(store: Store): Promise<string | null> {
  const row = await store.get<{ value: string }>('SELECT value FROM app_settings WHERE name = $1', [NAME]);
  return row?.value || null;
}

/** Sets (an id) or clears (null) the operator's default model. */
export async function writeDefaultModel(store: Store, modelId: string | null): Promise<void> {
  if (modelId === null) {
    await store.run('DELETE FROM app_settings WHERE name = $1', [NAME]);
    return;
  }
  await store.run(
    'INSERT INTO app_settings (name, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
    [NAME, modelId, Date.now()],
  );
}

/** The list with the chosen model flagged as the one default, when it is in the list; unchanged otherwise. */
export function withDefault(models: AppModel[], chosen: string | null): AppModel[] {
  if (!chosen || !models.some((m) => m.id === chosen)) return models;
  return models.map((m) => (m.isDefault === (m.id === chosen) ? m : { ...m, isDefault: m.id === chosen }));
}
