// Rate-limit figures: the spec's defaults, optionally overridden by a JSON file (LAGOON_RATE_LIMITS, read by
// lib/config.ts) that is deep-merged over them and validated at start, so a typo fails loudly instead of silently unlimiting a class.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const count = z.number().int().positive();

/** Requests per window (and per day when rpd is set); text classes add tokens per window. */
const requestClass = z.strictObject({ rpm: count, rpd: count.optional() });
const tokenClass = z.strictObject({ rpm: count, tpm: count, rpd: count.optional() });
const tiered = <T extends z.ZodType>(c: T) => z.strictObject({ default: c, partner: c });
const byModelTier = z.strictObject({ XS: tokenClass, S: tokenClass, M: tokenClass, L: tokenClass });

export const limitConfigSchema = z.strictObject({
  /** The length of "a minute" in seconds: 60 in production, 1-2 s in tests. */
  windowSeconds: count,
  /** The length of "a day" for rpd figures. */
  daySeconds: count,
  text: tiered(byModelTier),
  image: tiered(requestClass),
  /** tts and asr models. */
  audio: tiered(requestClass),
  embedding: tiered(requestClass),
  video: z.strictObject({ queue: tiered(requestClass), retrieve: tiered(requestClass) }),
  /** Management endpoints (keys, billing, rate-limit status), counted per credential across all of them. */
  api: tiered(requestClass),
  abuse: z.strictObject({ maxFailures: count, windowSeconds: count, blockSeconds: count }),
});

export type LimitConfig = z.infer<typeof limitConfigSchema>;
export type LimitClass = { rpm: number; tpm?: number; rpd?: number };
export type AbuseConfig = LimitConfig['abuse'];

const same = <T>(c: T) => ({ default: c, partner: c });

export const DEFAULT_LIMITS: LimitConfig = {
  windowSeconds: 60,
  daySeconds: 86_400,
  text: {
    default: {
      XS: { rpm: 500, tpm: 1_000_000 },
      S: { rpm: 75, tpm: 750_000 },
      M: { rpm: 50, tpm: 750_000 },
      L: { rpm: 20, tpm: 500_000 },
    },
    partner: {
      XS: { rpm: 500, tpm: 2_000_000 },
      S: { rpm: 150, tpm: 1_500_000 },
      M: { rpm: 100, tpm: 1_500_000 },
      L: { rpm: 60, tpm: 1_000_000 },
    },
  },
  image: { default: { rpm: 20 }, partner: { rpm: 60 } },
  audio: { default: { rpm: 60 }, partner: { rpm: 120 } },
  embedding: same({ rpm: 500 }),
  video: { queue: same({ rpm: 40 }), retrieve: same({ rpm: 120 }) },
  api: same({ rpm: 120 }),
  abuse: { maxFailures: 20, windowSeconds: 30, blockSeconds: 30 },
};

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Objects merge key by key; anything else in the override (numbers, arrays, null) replaces the base value. Keys are
 * looked up as own properties and written as own data properties, so `constructor` or `__proto__` in the file is
 * an unknown key the schema names, never an inherited member or a new prototype.
 */
export function deepMerge(base: unknown, override: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(override)) return override === undefined ? base : override;
  const out = new Map(Object.entries(base));
  for (const [k, v] of Object.entries(override)) out.set(k, deepMerge(Object.hasOwn(base, k) ? base[k] : undefined, v));
  return Object.fromEntries(out);
}

/** Validates a (merged) configuration; the error names each bad field by its path. */
export function parseLimitConfig(raw: unknown, source = 'rate-limit configuration'): LimitConfig {
  const parsed = limitConfigSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`invalid ${source}:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/**
 * The defaults, with the JSON file (LAGOON_RATE_LIMITS) merged over them when one is named. Errors read after the
 * variable's name: "… names <file>, which …".
 */
export function loadLimitConfig(file: string | undefined): LimitConfig {
  if (!file) return structuredClone(DEFAULT_LIMITS);
  const abs = path.resolve(file);
  let text: string;
  try {
    text = fs.readFileSync(abs, 'utf8');
  } catch (e) {
    throw new Error(`names ${abs}, which cannot be read: ${(e as Error).message}`);
  }
  let override: unknown;
  try {
    override = JSON.parse(text);
  } catch (e) {
    throw new Error(`names ${abs}, which is not valid JSON: ${(e as Error).message}`);
  }
  if (!isPlainObject(override)) throw new Error(`names ${abs}, which must hold a JSON object`);
  const parsed = limitConfigSchema.safeParse(deepMerge(DEFAULT_LIMITS, override));
  if (!parsed.success) throw new Error(`names ${abs}, which is not a valid rate-limit file:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
