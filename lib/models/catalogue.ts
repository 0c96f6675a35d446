// The loaded model catalogue: lookup by id, trait or compatibility alias, and the shapes GET /models serves.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { imageEngineProblem } from './image-models.ts';
import { type CatalogueFile, catalogueSchema, type ModelEntry, type ModelType } from './schema.ts';

export const DEFAULT_CATALOGUE = fileURLToPath(new URL('./default-catalogue.json', import.meta.url));

export interface Catalogue {
  file: CatalogueFile;
  models: ModelEntry[];
  byId: Map<string, ModelEntry>;
  systemPrompts: string[];
  /** Created time reported by /models: the catalogue file's modification time. */
  createdAt: number;
}

/** Looks up a variable the catalogue names (Config.catalogueVar: the environment captured at start). */
export type CatalogueVars = (name: string) => string | undefined;

const noVars: CatalogueVars = () => undefined;

/** `${VAR}` in engine paths comes from `vars`; relative paths are relative to the catalogue file. */
function expandPath(p: string, baseDir: string, vars: CatalogueVars): string {
  const expanded = p.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => {
    const v = vars(name);
    if (v === undefined) throw new Error(`catalogue path uses \${${name}}, which is not set`);
    return v;
  });
  return path.resolve(baseDir, expanded);
}

export function parseCatalogue(raw: unknown, baseDir: string, vars: CatalogueVars = noVars): Omit<Catalogue, 'createdAt'> {
  const parsed = catalogueSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`invalid model catalogue:\n${z.prettifyError(parsed.error)}`);
  const file = parsed.data;
  const byId = new Map<string, ModelEntry>();
  for (const m of file.models) {
    if (byId.has(m.id)) throw new Error(`invalid model catalogue: duplicate model id "${m.id}"`);
    if (m.engine.kind === 'llama') m.engine.path = expandPath(m.engine.path, baseDir, vars);
    if (m.engine.kind === 'comfyui') m.engine.workflow = expandPath(m.engine.workflow, baseDir, vars);
    const mismatch = imageEngineProblem(m);
    if (mismatch) throw new Error(`invalid model catalogue: ${mismatch}`);
    byId.set(m.id, m);
  }
  for (const [alias, target] of Object.entries(file.compatibility_mapping)) {
    if (!byId.has(target)) throw new Error(`invalid model catalogue: compatibility mapping "${alias}" → unknown model "${target}"`);
  }
  return { file, models: file.models, byId, systemPrompts: file.system_prompts };
}

export function loadCatalogue(file: string, vars: CatalogueVars): Catalogue {
  const abs = path.resolve(file);
  const text = fs.readFileSync(abs, 'utf8');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`model catalogue ${abs} is not valid JSON: ${(e as Error).message}`);
  }
  return { ...parseCatalogue(raw, path.dirname(abs), vars), createdAt: Math.floor(fs.statSync(abs).mtimeMs / 1000) };
}

// Lookup tolerates case, and dots/underscores/spaces for dashes, as clients often write ids loosely.
const normalise = (id: string) =>
  id
    .trim()
    .toLowerCase()
    .replace(/[._\s]+/g, '-');

/**
 * Resolves a model name (id, trait, compatibility alias) of the given type, or throws 404 MODEL_NOT_FOUND. The name
 * is the caller's: it is looked up only in Maps, arrays and own properties, so `constructor` or `__proto__` is just
 * an unknown name.
 */
export function resolveModel(cat: Catalogue, name: string, type: ModelType = 'text'): ModelEntry {
  const exact = cat.byId.get(name);
  if (exact) return exact;
  const ofType = cat.models.filter((m) => m.type === type);
  const byTrait = ofType.find((m) => m.traits.includes(name));
  if (byTrait) return byTrait;
  const mapping = cat.file.compatibility_mapping;
  const alias = Object.hasOwn(mapping, name) ? cat.byId.get(mapping[name]) : undefined;
  if (alias) return alias;
  const wanted = normalise(name);
  const loose = cat.models.find((m) => normalise(m.id) === wanted);
  if (loose) return loose;
  const ids = ofType
    .map((m) => m.id)
    .slice(0, 10)
    .join(', ');
  throw new ApiError('MODEL_NOT_FOUND', `Specified model not found: "${name}". Available ${type} models: ${ids || 'none'}.`);
}

// Built in Maps and turned into objects with Object.fromEntries (own data properties, whatever the names).
export function traitsOf(cat: Catalogue, type: ModelType): Record<string, string> {
  const out = new Map<string, string>();
  for (const m of cat.models) if (m.type === type) for (const t of m.traits) if (!out.has(t)) out.set(t, m.id);
  return Object.fromEntries(out);
}

export function compatibilityMappingOf(cat: Catalogue, type: ModelType): Record<string, string> {
  return Object.fromEntries(Object.entries(cat.file.compatibility_mapping).filter(([, id]) => cat.byId.get(id)?.type === type));
}
