// The operator's catalogue changes, made from the browser (the operator models page) and stored in the database
// (operator_catalogue, migration 16): models added (OpenAI-compatible upstreams), models disabled, token prices
// edited. They are merged over the catalogue file IN PLACE — every part of the service holds the same Catalogue
// object and reads `models`/`byId` per request — so a change takes effect at once, with no restart. On a shared
// database every instance re-reads the table every few seconds (`start`), so all of them agree. A stored upstream key
// is sealed (lib/db/secret-box.ts) under the secrets key; one stored in the clear before sealing existed is sealed on
// the first read that has a key.
import { isSealed, type SecretBox } from '../db/secret-box.ts';
import type { Store } from '../db/store.ts';
import { log } from '../log.ts';
import type { Catalogue } from './catalogue.ts';
import { type ModelEntry, modelEntrySchema } from './schema.ts';

/** The token prices an operator may set (USD and DIEM per million tokens). */
export interface TokenPrices {
  input_usd: number;
  output_usd: number;
  input_diem: number;
  output_diem: number;
}

export interface OperatorRow {
  modelId: string;
  /** A whole entry the operator added; null for an override of a catalogue-file model. */
  entry: ModelEntry | null;
  /** Whether a key is stored for an added upstream (the key itself never leaves this module but to the engine). */
  hasStoredKey: boolean;
  disabled: boolean;
  pricing: TokenPrices | null;
  updatedAt: number;
}

interface Row {
  model_id: string;
  entry: string | null;
  api_key: string | null;
  disabled: boolean | number;
  pricing: string | null;
  updated_at: number | string;
}

/**
 * The name an added model's stored key is looked up by (its engine's `apiKeyEnv`). The colon keeps it apart from any
 * environment variable, so a stored key can never be shadowed by, or shadow, one of the server's variables.
 */
export const storedKeyName = (modelId: string): string => `lagoon-operator-key:${modelId}`;

const parseJson = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

function toRow(r: Row): OperatorRow & { storedKey: string | null } {
  const raw = parseJson(r.entry);
  // Stored entries were validated when added; one that no longer parses (a schema change) is skipped, not fatal.
  const entry = raw === null ? null : (modelEntrySchema.safeParse(raw).data ?? null);
  return {
    modelId: r.model_id,
    entry,
    storedKey: r.api_key,
    hasStoredKey: !!r.api_key,
    disabled: Boolean(r.disabled),
    pricing: parseJson(r.pricing) as TokenPrices | null,
    updatedAt: Number(r.updated_at),
  };
}

async function readRows(store: Store) {
  const rows = await store.all<Row>('SELECT model_id, entry, api_key, disabled, pricing, updated_at FROM operator_catalogue ORDER BY model_id');
  return rows.map(toRow);
}

/** The file's models with the operator's changes: overrides applied, disabled ones left out, added ones at the end. */
export function mergeOperatorChanges(base: readonly ModelEntry[], rows: readonly OperatorRow[]): ModelEntry[] {
  const byId = new Map(rows.map((r) => [r.modelId, r]));
  const withPrices = (m: ModelEntry, p: TokenPrices | null): ModelEntry => (p ? { ...m, pricing: { ...m.pricing, ...p } } : m);
  const out: ModelEntry[] = [];
  const baseIds = new Set<string>();
  for (const m of base) {
    baseIds.add(m.id);
    const r = byId.get(m.id);
    if (r?.disabled) continue;
    out.push(withPrices(m, r?.pricing ?? null));
  }
  for (const r of rows) if (r.entry && !r.disabled && !baseIds.has(r.modelId)) out.push(withPrices(r.entry, r.pricing));
  return out;
}

export class OperatorCatalogue {
  /** The catalogue file's own models, as loaded (the merge always starts from these). */
  private readonly base: ModelEntry[];
  private rows: OperatorRow[] = [];
  private keys = new Map<string, string>();
  private fingerprint = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly store: Store;
  private readonly catalogue: Catalogue;
  /** Called with the ids whose engine changed or went away, so their cached engines are dropped. */
  private readonly onEnginesChanged: (ids: string[]) => Promise<void>;
  /** Seals stored keys; undefined (PostgreSQL without LAGOON_SECRETS_KEY): none can be stored. */
  private readonly secrets: SecretBox | undefined;

  constructor(store: Store, catalogue: Catalogue, onEnginesChanged: (ids: string[]) => Promise<void> = async () => undefined, secrets?: SecretBox) {
    this.store = store;
    this.catalogue = catalogue;
    this.onEnginesChanged = onEnginesChanged;
    this.secrets = secrets;
    this.base = [...catalogue.models];
  }

  /** The file's models (for the operator page: what can be overridden, and which ids are taken). */
  fileModels(): readonly ModelEntry[] {
    return this.base;
  }

  /** The operator's rows as last read. */
  changes(): readonly OperatorRow[] {
    return this.rows;
  }

  /** Whether an upstream's key can be stored (there is a secrets key to seal it with). */
  canStoreKeys(): boolean {
    return this.secrets !== undefined;
  }

  /** An added upstream's stored key, by the name its engine's apiKeyEnv carries (see storedKeyName). */
  storedKey(name: string): string | undefined {
    return this.keys.get(name);
  }

  /** Reads the table and applies it when anything changed; resolves to whether it did. */
  async refresh(): Promise<boolean> {
    const rows = await readRows(this.store);
    const fingerprint = JSON.stringify(rows);
    if (fingerprint === this.fingerprint) return false;
    this.fingerprint = fingerprint;
    const before = new Map(this.catalogue.models.map((m) => [m.id, JSON.stringify(m.engine)]));
    this.keys = new Map();
    for (const r of rows) {
      const key = r.entry && r.storedKey ? await this.openKey(r.modelId, r.storedKey) : undefined;
      if (key !== undefined) this.keys.set(storedKeyName(r.modelId), key);
    }
    this.rows = rows.map(({ storedKey: _secret, ...r }) => r);
    const merged = mergeOperatorChanges(this.base, this.rows);
    // In place: the same array and map every holder of the Catalogue reads.
    this.catalogue.models.splice(0, this.catalogue.models.length, ...merged);
    this.catalogue.byId.clear();
    for (const m of merged) this.catalogue.byId.set(m.id, m);
    // An engine whose spec changed (an added upstream edited, or removed and added again) is made again on next use.
    // A disabled model's engine stays cached: nothing can reach it while it is disabled, and enabling it reuses it.
    const changed = merged.filter((m) => before.has(m.id) && before.get(m.id) !== JSON.stringify(m.engine)).map((m) => m.id);
    const gone = [...before.keys()].filter((id) => !this.catalogue.byId.has(id) && !this.base.some((b) => b.id === id) && !rows.some((r) => r.modelId === id));
    if (changed.length || gone.length) await this.onEnginesChanged([...changed, ...gone]);
    return true;
  }

  /**
   * A stored key in the clear; undefined (logged) when it does not open, so its model answers as an upstream without
   * its key would, and the server keeps serving the others. A key stored before sealing existed is sealed in place.
   */
  private async openKey(modelId: string, stored: string): Promise<string | undefined> {
    const context = storedKeyName(modelId);
    if (!isSealed(stored)) {
      if (this.secrets) {
        // Conditional on the old value: an instance that sealed it first wins, and nothing is sealed twice.
        await this.store.run('UPDATE operator_catalogue SET api_key = $2 WHERE model_id = $1 AND api_key = $3', [
          modelId,
          this.secrets.seal(stored, context),
          stored,
        ]);
      }
      return stored;
    }
    if (!this.secrets) {
      log.error({ model: modelId }, 'a stored upstream key is sealed, but LAGOON_SECRETS_KEY is not set: the model has no key');
      return undefined;
    }
    try {
      return this.secrets.open(stored, context);
    } catch {
      log.error({ model: modelId }, 'a stored upstream key does not open with this secrets key (another LAGOON_SECRETS_KEY?): the model has no key');
      return undefined;
    }
  }

  /** Re-reads the table every `intervalMs` (instances sharing a database see each other's changes). */
  start(intervalMs: number): void {
    if (this.timer || intervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.refresh().catch((e) => log.error({ err: e }, 'reading the operator catalogue failed'));
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Adds a model (a validated entry whose id no other model has); `apiKey` is stored, sealed, when given. */
  async add(entry: ModelEntry, apiKey: string | null, now = Date.now()): Promise<void> {
    if (apiKey && !this.secrets) throw new Error('no secrets key to seal an upstream key with (canStoreKeys)');
    await this.store.run(`INSERT INTO operator_catalogue (model_id, entry, api_key, disabled, pricing, updated_at) VALUES ($1, $2, $3, $4, NULL, $5)`, [
      entry.id,
      JSON.stringify(entry),
      apiKey ? this.secrets!.seal(apiKey, storedKeyName(entry.id)) : null,
      false,
      now,
    ]);
    await this.refresh();
  }

  /** Disables or enables a model, or sets its token prices (null: back to the entry's own). */
  async update(modelId: string, change: { disabled?: boolean; pricing?: TokenPrices | null }, now = Date.now()): Promise<void> {
    const existing = this.rows.find((r) => r.modelId === modelId);
    if (!existing) {
      await this.store.run(
        `INSERT INTO operator_catalogue (model_id, entry, api_key, disabled, pricing, updated_at) VALUES ($1, NULL, NULL, $2, $3, $4)
         ON CONFLICT (model_id) DO NOTHING`,
        [modelId, change.disabled ?? false, change.pricing ? JSON.stringify(change.pricing) : null, now],
      );
    }
    if (change.disabled !== undefined)
      await this.store.run('UPDATE operator_catalogue SET disabled = $2, updated_at = $3 WHERE model_id = $1', [modelId, change.disabled, now]);
    if (change.pricing !== undefined)
      await this.store.run('UPDATE operator_catalogue SET pricing = $2, updated_at = $3 WHERE model_id = $1', [
        modelId,
        change.pricing ? JSON.stringify(change.pricing) : null,
        now,
      ]);
    // An override that no longer changes anything is removed, so the file's model is served as written.
    await this.store.run('DELETE FROM operator_catalogue WHERE model_id = $1 AND entry IS NULL AND pricing IS NULL AND disabled = $2', [modelId, false]);
    await this.refresh();
  }

  /** Removes an added model, or an override (the file's model comes back as written). */
  async remove(modelId: string): Promise<boolean> {
    const n = await this.store.run('DELETE FROM operator_catalogue WHERE model_id = $1', [modelId]);
    await this.refresh();
    return n > 0;
  }
}
