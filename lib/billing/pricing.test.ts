// Prices in every unit: the catalogue's unit prices, quotes (rounded up) and costs (rounded), tokens unchanged.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseCatalogue } from '../models/catalogue.ts';
import type { ModelEntry } from '../models/schema.ts';
import { costOf, costOfUse, estimateOf, perCallPrices, quantityOf, quote, unitPrices } from './pricing.ts';

// Each type on an engine that can serve it (the catalogue refuses, say, a speech model on a chat engine).
const TEXT_ENGINE = { kind: 'openai', baseUrl: 'http://127.0.0.1:1/v1' };
const AUDIO_ENGINE = { kind: 'openai-audio', baseUrl: 'http://127.0.0.1:1/v1' };
const engineFor = (type: string) => (type === 'tts' || type === 'asr' ? AUDIO_ENGINE : TEXT_ENGINE);
const tokens = { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0 };

function entry(type: string, pricing: Record<string, unknown>): ModelEntry {
  return parseCatalogue({ models: [{ id: `m-${type}`, name: 'M', type, tier: 'XS', pricing, context_length: 100, engine: engineFor(type) }] }, '/').models[0];
}

describe('unit prices', () => {
  test('tokens: per million tokens, cached input, quote rounds up and cost rounds as before', () => {
    const m = entry('text', { input_usd: 0.7, output_usd: 2.5, input_diem: 0.35, output_diem: 1.25, cached_input_usd: 0.1 });
    assert.deepEqual(costOf(m, { promptTokens: 3, completionTokens: 2, cachedTokens: 1 }), {
      usd: Math.round(2 * 0.7 + 0.1 + 5),
      diem: Math.round(2 * 0.35 + 0.1 + 2.5),
    });
    assert.deepEqual(estimateOf(m, 3, 2, 2), { usd: Math.ceil(3 * 0.7 + 4 * 2.5), diem: Math.ceil(3 * 0.35 + 4 * 1.25) });
    assert.deepEqual(quote(unitPrices(m), { promptTokens: 3, completionTokens: 4 }), estimateOf(m, 3, 2, 2));
  });

  test('per image, by size and per step; a DIEM price left out is the USD price', () => {
    const m = entry('image', {
      ...tokens,
      per_image_usd: 0.01,
      per_image_diem: 0.02,
      per_image_by_size: { '2048x2048': { usd: 0.04 } },
      per_image_step_usd: 0.0001,
    });
    assert.deepEqual(quote(unitPrices(m), { images: 2 }), { usd: 20_000, diem: 40_000 });
    assert.deepEqual(quote(unitPrices(m), { images: 2, imageSize: '2048x2048' }), { usd: 80_000, diem: 80_000 });
    assert.deepEqual(quote(unitPrices(m), { images: 2, imageSize: '512x512' }), { usd: 20_000, diem: 40_000 }, 'an unlisted size has the base price');
    assert.deepEqual(quote(unitPrices(m), { images: 3, imageSteps: 30 }), { usd: 3 * (10_000 + 3_000), diem: 3 * (20_000 + 3_000) });
  });

  test('per 1,000 characters, per second, per RPC credit, per call; decimals never round a worst case up', () => {
    const tts = entry('tts', { ...tokens, per_1k_characters_usd: 0.015 });
    assert.deepEqual(quote(unitPrices(tts), { characters: 1000 }), { usd: 15_000, diem: 15_000 });
    assert.deepEqual(quote(unitPrices(tts), { characters: 1 }), { usd: 15, diem: 15 });
    const asr = entry('asr', { ...tokens, per_second_usd: 0.07, per_second_diem: 0.03 });
    assert.deepEqual(quote(unitPrices(asr), { seconds: 3 }), { usd: 210_000, diem: 90_000 });
    const video = entry('video', { ...tokens, per_second_usd: 0.1 });
    assert.deepEqual(quote(unitPrices(video), { seconds: 8 }), costOfUse(unitPrices(video), { seconds: 8 }));
    const rpc = entry('text', { ...tokens, per_rpc_credit_usd: 0.000001, per_call_usd: 0.003 });
    assert.deepEqual(quote(unitPrices(rpc), { rpcCredits: 25, calls: 2 }), { usd: 25 + 6_000, diem: 25 + 6_000 });
    assert.deepEqual(quote(perCallPrices(5_000), { calls: 1 }), { usd: 5_000, diem: 5_000 });
  });

  test('searches and scraped pages are priced by the server fees, on top of the model', () => {
    const m = entry('text', { input_usd: 1, output_usd: 1, input_diem: 1, output_diem: 1 });
    const q = { promptTokens: 10, completionTokens: 5, searches: 1, scrapedUrls: 2 };
    assert.deepEqual(quote(unitPrices(m), q, { search: 10_000, scrapedUrl: 1_000 }), { usd: 15 + 12_000, diem: 15 + 12_000 });
    assert.deepEqual(quote(unitPrices(m), q), { usd: 15, diem: 15 }, 'no fees: counted, not priced');
  });

  test('a unit the model does not price is refused, never free', () => {
    const m = entry('text', { input_usd: 1, output_usd: 1, input_diem: 1, output_diem: 1 });
    assert.throws(() => quote(unitPrices(m), { images: 1 }), /no price for images/);
    assert.throws(() => quote(unitPrices(m), { seconds: 1 }), /no price for seconds/);
  });

  test('the catalogue refuses a media model without its unit price', () => {
    assert.throws(() => entry('image', tokens), /a model of type image must declare pricing.per_image_usd/);
    assert.throws(() => entry('tts', tokens), /per_1k_characters_usd/);
    assert.throws(() => entry('asr', tokens), /per_second_usd/);
    assert.throws(() => entry('video', tokens), /per_second_usd/);
    assert.equal(entry('image', { ...tokens, per_image_by_size: { '1024x1024': { usd: 0.01 } } }).type, 'image');
  });

  test('the row quantity of each unit', () => {
    const q = { promptTokens: 3, completionTokens: 4, images: 2, characters: 1200, seconds: 9, rpcCredits: 7, calls: 1 };
    assert.deepEqual(
      (['token', 'image', 'character', 'second', 'rpc_credit', 'call'] as const).map((u) => quantityOf(u, q)),
      [7, 2, 1200, 9, 7, 1],
    );
  });
});
