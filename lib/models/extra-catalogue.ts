// The short file of models ADDED to the catalogue (LAGOON_MODELS_EXTRA, default $LAGOON_DATA_DIR/models.local.json),
// so connecting a real model never replaces the default catalogue (whose demo embedding model other features use).
// Its layout is the catalogue's (`models`, optionally `compatibility_mapping`); an entry whose id is already in the
// catalogue replaces that entry, a new one is appended, and a text or embedding model with the `default` trait takes
// that trait over from the catalogue's models of its type. `npx lagoon model add` writes it (lib/cli/model.ts).
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { CatalogueError, problemsOf } from './catalogue-error.ts';
import { catalogueSchema } from './schema.ts';

type Raw = Record<string, unknown>;
type RawModel = Raw & { id?: unknown; type?: unknown; traits?: unknown; engine?: Raw };

/** The extra file's shape: the catalogue's, with every part optional. */
const extraShape = z.strictObject({
  models: z.array(z.unknown()).default([]),
  compatibility_mapping: z.record(z.string(), z.string()).optional(),
  system_prompts: z.array(z.string()).optional(),
  image_styles: z.array(z.string()).optional(),
});

export type ExtraFile = z.infer<typeof extraShape>;

/** Reads a JSON file, or throws a CatalogueError naming it (missing, unreadable, not JSON). */
export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CatalogueError([{ path: '', message: code === 'ENOENT' ? 'the file does not exist' : `the file cannot be read (${code})` }], file);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new CatalogueError([{ path: '', message: `it is not valid JSON (${(e as Error).message})` }], file);
  }
}

/** The extra file checked on its own, so a problem in it is reported with its own field paths. */
export function parseExtraFile(raw: unknown, file: string): ExtraFile {
  const shape = extraShape.safeParse(raw);
  if (!shape.success) throw new CatalogueError(problemsOf(shape.error, raw), file);
  if (shape.data.models.length > 0) {
    const whole = catalogueSchema.safeParse({ models: shape.data.models });
    if (!whole.success) throw new CatalogueError(problemsOf(whole.error, raw), file);
  }
  return shape.data;
}

/** Engine paths in the extra file are relative to it, not to the main catalogue. */
function anchorPaths(m: RawModel, dir: string): RawModel {
  const e = m.engine;
  if (!e) return m;
  const anchor = (p: unknown) => (typeof p === 'string' && !p.includes('${') ? path.resolve(dir, p) : p);
  if (e.kind === 'llama') return { ...m, engine: { ...e, path: anchor(e.path) } };
  if (e.kind === 'comfyui' || e.kind === 'comfyui-video') return { ...m, engine: { ...e, workflow: anchor(e.workflow) } };
  return m;
}

const traitsOf = (m: RawModel): string[] => (Array.isArray(m.traits) ? (m.traits as string[]) : []);

/** The main catalogue's raw JSON with the extra file's models merged in (before validation of the whole). */
export function mergeExtra(base: Raw, extra: ExtraFile, extraDir: string): Raw {
  const models = [...((base.models as RawModel[] | undefined) ?? [])];
  for (const added of extra.models as RawModel[]) {
    const m = anchorPaths(added, extraDir);
    if (traitsOf(m).includes('default')) {
      for (const [i, other] of models.entries())
        if (other.type === m.type && traitsOf(other).includes('default')) models[i] = { ...other, traits: traitsOf(other).filter((t) => t !== 'default') };
    }
    const at = models.findIndex((o) => o.id === m.id);
    if (at >= 0) models[at] = m;
    else models.push(m);
  }
  return {
    ...base,
    models,
    compatibility_mapping: { ...((base.compatibility_mapping as Raw | undefined) ?? {}), ...extra.compatibility_mapping },
    ...(extra.system_prompts ? { system_prompts: extra.system_prompts } : {}),
    ...(extra.image_styles ? { image_styles: extra.image_styles } : {}),
  };
}
