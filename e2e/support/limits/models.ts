// Catalogue entries and configurations for the limits tests.
import { DEFAULT_LIMITS, deepMerge, parseLimitConfig, type LimitConfig } from '../../../lib/limits/config.ts';
import { modelEntrySchema, type ModelEntry, type ModelType, type Tier } from '../../../lib/models/schema.ts';

/** A minimal valid catalogue entry of the given type and tier. */
export function model(type: ModelType, tier: Tier = 'L', id = `test-${type}-${tier}`): ModelEntry {
  return modelEntrySchema.parse({
    id,
    name: id,
    type,
    tier,
    pricing: { input_usd: 1, output_usd: 1, input_diem: 1, output_diem: 1 },
    context_length: 8192,
    engine: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1' },
  });
}

/** The defaults with an override merged in and validated, as loadLimitConfig does with a file. */
export function limits(override: unknown): LimitConfig {
  return parseLimitConfig(deepMerge(DEFAULT_LIMITS, override));
}

/** A prefix no other test run shares, so Redis keys never collide. */
export function uniquePrefix(name: string): string {
  return `lagoon-test:${name}:${process.pid}:${Date.now().toString(36)}:${Math.random().toString(36).slice(2, 8)}`;
}
