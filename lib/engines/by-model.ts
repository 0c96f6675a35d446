// One engine per catalogue model, created on first use and shared by every later request for that model. A failed
// creation is forgotten, so the next request tries again; close() closes every engine made.
import type { ModelEntry } from '../models/schema.ts';

export abstract class EnginesByModel<E extends { close?(): Promise<void> }> {
  private readonly engines = new Map<string, Promise<E>>();
  /** Refuses a model before its engine is made or used (EngineHealth.refusal: a 503 while its engine is down). */
  private gate: ((modelId: string) => Error | undefined) | undefined;

  gateWith(gate: (modelId: string) => Error | undefined): void {
    this.gate = gate;
  }

  /** Makes the engine of a model (called once per model, unless it failed). */
  protected abstract create(model: ModelEntry): Promise<E>;

  get(model: ModelEntry): Promise<E> {
    const refused = this.gate?.(model.id);
    if (refused) return Promise.reject(refused);
    let e = this.engines.get(model.id);
    if (!e) {
      e = this.create(model);
      this.engines.set(model.id, e);
      e.catch(() => this.engines.delete(model.id));
    }
    return e;
  }

  /** Drops and closes the engines of these models (their catalogue entry changed at run time), made again on next use. */
  async forget(ids: readonly string[]): Promise<void> {
    const dropped = ids.flatMap((id) => {
      const e = this.engines.get(id);
      this.engines.delete(id);
      return e ? [e] : [];
    });
    await Promise.all(dropped.map(async (p) => (await p.catch(() => undefined))?.close?.()));
  }

  async close(): Promise<void> {
    const all = [...this.engines.values()];
    this.engines.clear();
    await Promise.all(all.map(async (p) => (await p.catch(() => undefined))?.close?.()));
  }
}
