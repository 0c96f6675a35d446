// One engine per catalogue model, created on first use and shared by every later request for that model. A failed
// creation is forgotten, so the next request tries again; close() closes every engine made.
import type { ModelEntry } from '../models/schema.ts';

export abstract class EnginesByModel<E extends { close?(): Promise<void> }> {
  private readonly engines = new Map<string, Promise<E>>();

  /** Makes the engine of a model (called once per model, unless it failed). */
  protected abstract create(model: ModelEntry): Promise<E>;

  get(model: ModelEntry): Promise<E> {
    let e = this.engines.get(model.id);
    if (!e) {
      e = this.create(model);
      this.engines.set(model.id, e);
      e.catch(() => this.engines.delete(model.id));
    }
    return e;
  }

  async close(): Promise<void> {
    const all = [...this.engines.values()];
    this.engines.clear();
    await Promise.all(all.map(async (p) => (await p.catch(() => undefined))?.close?.()));
  }
}
