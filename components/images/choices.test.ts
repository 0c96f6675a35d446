// The image mode's settings → the request: each setting only where the model offers it, else the model's default;
// the seed as typed (empty: random; anything else that is not a seed in range: refused).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AppImageModel } from '@/lib/images/wire.ts';
import { NO_CHOICES, perImageUsd, requestOf, seedOf } from './choices.ts';

const base: AppImageModel = {
  id: 'demo',
  name: 'Demo',
  description: null,
  demo: true,
  kind: 'generate',
  isDefault: true,
  perImageUsd: 0.002,
  perStepUsd: 0.0001,
  promptCharacterLimit: 1500,
  maxVariants: 4,
  negativePrompt: true,
  defaultSteps: 8,
  aspectRatios: ['1:1', '16:9'],
  resolutions: ['1K', '2K'],
  defaultResolution: '1K',
  sizes: [],
  defaultSize: '1024x1024',
  maxScale: 0,
  maskRefusal: null,
};
const sized: AppImageModel = {
  ...base,
  id: 'sized',
  aspectRatios: [],
  resolutions: [],
  defaultResolution: null,
  sizes: ['512x512', '1024x1024'],
  maxVariants: 2,
};

test('a ratio model: the chosen ratio and tier where offered, else its first ratio and default tier', () => {
  assert.deepEqual(requestOf(base, { ...NO_CHOICES, aspect: '16:9', resolution: '2K', variants: 3 }, []), {
    model: 'demo',
    variants: 3,
    aspectRatio: '16:9',
    resolution: '2K',
  });
  assert.deepEqual(requestOf(base, { ...NO_CHOICES, aspect: '4:3', resolution: '4K', style: 'Anime' }, ['Photographic']), {
    model: 'demo',
    variants: 1,
    aspectRatio: '1:1',
    resolution: '1K',
  });
});

test('a sized model: width and height from the chosen size, variants capped at its maximum, the seed when valid', () => {
  assert.deepEqual(requestOf(sized, { ...NO_CHOICES, size: '512x512', variants: 4, seed: ' 42 ', style: 'Anime' }, ['Anime']), {
    model: 'sized',
    variants: 2,
    style: 'Anime',
    width: 512,
    height: 512,
    seed: 42,
  });
  assert.deepEqual(requestOf(sized, { ...NO_CHOICES, size: '640x480' }, []), { model: 'sized', variants: 1, width: 1024, height: 1024 });
});

test('seeds: empty is random, whole numbers 1–999,999,995 are seeds, anything else is refused', () => {
  assert.equal(seedOf(''), undefined);
  assert.equal(seedOf('   '), undefined);
  assert.equal(seedOf('1'), 1);
  assert.equal(seedOf('999999995'), 999_999_995);
  for (const bad of ['0', '999999996', '-5', '1.5', '1e3', 'abc', '1234567890']) assert.equal(seedOf(bad), null, bad);
});

test('the price of one image at the default steps', () => {
  assert.equal(perImageUsd(base), 0.002 + 0.0001 * 8);
  assert.equal(perImageUsd({ ...base, perImageUsd: null }), null);
});
