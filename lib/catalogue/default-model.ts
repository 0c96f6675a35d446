// The operator's default model for new chats, chosen on the operator's models page and kept in the database
// (app_settings, migration 34), so it survives a restart and every instance on a shared database reads the same
// choice. Every chat turn asks for it, so it is cached per store: a change made by this process applies at once, one
// made by another instance within DEFAULT_MODEL_TTL_MS (as a revoked key's cached principal does). The app's model list
// flags it as the default, and so every place that starts a chat without naming a model starts on it. A choice that is
// no longer served (disabled or removed since) is ignored, not cleared: the built-in default (appDefaultModel: the
// catalogue's default, a real model before the demo one) takes over until the operator enables it again or chooses
// another.
import type { Store } from '../db/store.ts';
import type { AppModel } from './wire.ts';

const NAME = 'default_model';

/** How long a read choice is used before it is read again: the most another instance's change can take to apply here. */
export const DEFAULT_MODEL_TTL_MS = 5_000;

/**
 * The choice as last read, per store. `generation` is bumped by every write of this process, so a read that started
 * before a write cannot put the old value back into the cache after it.
 */
const cached = new WeakMap<Store, { value: string | null; until: number; generation: number }>();
const generations = new WeakMap<Store, number>();

/** The operator's chosen default model id, or null when none is chosen. */
export async function readDefaultModel(store: Store, now = Date.now()): Promise<string | null> {
  const hit = cached.get(store);
  const generation = generations.get(store) ?? 0;
  if (hit && hit.until > now && hit.generation === generation) return hit.value;
  const row = await store.get<{ value: string }>('SELECT value FROM app_settings WHERE name = $1', [NAME]);
  const value = row?.value || null;
  if ((generations.get(store) ?? 0) === generation) cached.set(store, { value, until: now + DEFAULT_MODEL_TTL_MS, generation });
  return value;
}

/** Sets (an id) or clears (null) the operator's default model; this process reads the new choice at once. */
export async function writeDefaultModel(store: Store, modelId: string | null): Promise<void> {
  try {
    if (modelId === null) {
      await store.run('DELETE FROM app_settings WHERE name = $1', [NAME]);
      return;
    }
    await store.run(
      'INSERT INTO app_settings (name, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
      [NAME, modelId, Date.now()],
    );
  } finally {
    // Dropped after the write (and whether or not it went through): the next read is the database's.
    generations.set(store, (generations.get(store) ?? 0) + 1);
    cached.delete(store);
  }
}

/** The list with the chosen model flagged as the one default, when it is in the list; unchanged otherwise. */
export function withDefault(models: AppModel[], chosen: string | null): AppModel[] {
  if (!chosen || !models.some((m) => m.id === chosen)) return models;
  return models.map((m) => (m.isDefault === (m.id === chosen) ? m : { ...m, isDefault: m.id === chosen }));
}
