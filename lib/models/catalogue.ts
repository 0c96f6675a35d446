// The loaded model catalogue: lookup by id, trait or compatibility alias, and the shapes GET /models serves.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError } from '../api/errors.ts';
import { audioEngineProblem } from './audio-models.ts';
import { CatalogueError, problemsOf } from './catalogue-error.ts';
import { mergeExtra, parseExtraFile, readJsonFile } from './extra-catalogue.ts';
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
  /** What loading changed or added, for the start-up log (a baseUrl given /v1, the extra file's models). */
  notes?: string[];
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

/**
 * An OpenAI-style base URL with nothing after the host gets the usual `/v1` (`http://host:8000` → `http://host:8000/v1`),
 * so both spellings work; a URL with a path is kept as written (hosted APIs put theirs elsewhere), without a trailing
 * slash. Returns the URL to use.
 */
export function normaliseBaseUrl(url: string): string {
  const u = new URL(url);
  if (u.pathname === '/' || u.pathname === '') u.pathname = '/v1';
  return u.href.replace(/\/+$/, '');
}

const OPENAI_STYLE = new Set(['openai', 'openai-images', 'openai-audio', 'openai-videos']);

export function parseCatalogue(raw: unknown, baseDir: string, vars: CatalogueVars = noVars): Omit<Catalogue, 'createdAt'> {
  const parsed = catalogueSchema.safeParse(raw);
  if (!parsed.success) throw new CatalogueError(problemsOf(parsed.error, raw));
  const file = parsed.data;
  const byId = new Map<string, ModelEntry>();
  const notes: string[] = [];
  const problem = (i: number, field: string, message: string) => new CatalogueError([{ path: `models[${i}] ("${file.models[i].id}")${field}`, message }]);
  for (const [i, m] of file.models.entries()) {
    if (byId.has(m.id)) throw problem(i, '.id', `duplicate model id "${m.id}"`);
    if (m.engine.kind === 'llama') m.engine.path = expandPathAt(m.engine.path, baseDir, vars, () => problem(i, '.engine.path', ''));
    if (m.engine.kind === 'comfyui') m.engine.workflow = expandPathAt(m.engine.workflow, baseDir, vars, () => problem(i, '.engine.workflow', ''));
    if (OPENAI_STYLE.has(m.engine.kind)) {
      const e = m.engine as { baseUrl: string | string[] };
      const given = Array.isArray(e.baseUrl) ? e.baseUrl : [e.baseUrl];
      // `localhost:8000` parses as a URL of scheme "localhost:"; say what is meant instead of failing every request.
      for (const u of given) if (!/^https?:\/\//i.test(u)) throw problem(i, '.engine.baseUrl', `"${u}" must start with http:// or https://`);
      const used = given.map(normaliseBaseUrl);
      for (const [j, u] of used.entries()) if (u !== given[j].replace(/\/+$/, '')) notes.push(`model ${m.id}: baseUrl ${given[j]} has no path; using ${u}`);
      e.baseUrl = Array.isArray(e.baseUrl) ? used : used[0];
    }
    const mismatch = imageEngineProblem(m) ?? audioEngineProblem(m);
    if (mismatch) throw problem(i, '.engine', mismatch);
    byId.set(m.id, m);
  }
  for (const [alias, target] of Object.entries(file.compatibility_mapping)) {
    if (!byId.has(target)) throw new CatalogueError([{ path: `compatibility_mapping.${alias}`, message: `names an unknown model "${target}"` }]);
  }
  return { file, models: file.models, byId, systemPrompts: file.system_prompts, notes };
}

/** expandPath, its failure (an unset variable) reported at the field. */
function expandPathAt(p: string, baseDir: string, vars: CatalogueVars, at: () => CatalogueError): string {
  try {
    return expandPath(p, baseDir, vars);
  } catch (e) {
    const where = at().problems[0];
    throw new CatalogueError([{ path: where.path, message: (e as Error).message.replace(/^catalogue path /, 'it ') }]);
  }
}

/** The extra file of models added to the catalogue (lib/models/extra-catalogue.ts); `required`: it must exist. */
export interface ExtraCatalogue {
  file: string;
  required: boolean;
}

/**
 * Loads and checks the catalogue file, with the extra file's models merged in when there is one. Every problem is a
 * CatalogueError naming the file and the field.
 */
export function loadCatalogue(file: string, vars: CatalogueVars, extra?: ExtraCatalogue): Catalogue {
  const abs = path.resolve(file);
  const raw = readJsonFile(abs);
  let mtimeMs = fs.statSync(abs).mtimeMs;
  const extraAbs = extra && path.resolve(extra.file);
  if (!extraAbs || (!extra.required && !fs.existsSync(extraAbs))) {
    try {
      return { ...parseCatalogue(raw, path.dirname(abs), vars), createdAt: Math.floor(mtimeMs / 1000) };
    } catch (e) {
      throw e instanceof CatalogueError ? e.inFile(abs) : e;
    }
  }
  const added = parseExtraFile(readJsonFile(extraAbs), extraAbs);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new CatalogueError([{ path: '', message: 'it must be a JSON object' }], abs);
  mtimeMs = Math.max(mtimeMs, fs.statSync(extraAbs).mtimeMs);
  let cat: Omit<Catalogue, 'createdAt'>;
  try {
    cat = parseCatalogue(mergeExtra(raw as Record<string, unknown>, added, path.dirname(extraAbs)), path.dirname(abs), vars);
  } catch (e) {
    // Each file was valid alone: what is left is how they combine (an alias to a model neither has, …).
    throw e instanceof CatalogueError ? e.inFile(`${abs} with ${extraAbs}`) : e;
  }
  const ids = (added.models as { id?: unknown }[]).map((m) => String(m.id));
  const notes = [...(cat.notes ?? []), `${ids.length} model(s) from ${extraAbs}: ${ids.join(', ')}`];
  return { ...cat, notes, createdAt: Math.floor(mtimeMs / 1000) };
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
