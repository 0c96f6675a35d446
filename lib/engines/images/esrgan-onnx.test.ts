// The ONNX graph built from esrgan-slim's Keras model computes what the Keras model computes: a plain-JavaScript
// forward pass over the same layers (channels last, Keras's HWIO kernels, no ONNX anywhere) is the reference, on an
// input that is not square so a swapped height and width would show. Also: what the converter does not know, it refuses.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { esrganToOnnx, type LayersModelJson, readEsrganSlim } from './esrgan-onnx.ts';

const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node') as typeof import('onnxruntime-node');

const load = readEsrganSlim;

/** A feature map, channels last. */
interface Map3 {
  h: number;
  w: number;
  c: number;
  v: Float64Array;
}

/** The Keras model run layer by layer, straight from its JSON and weights. */
function reference(model: LayersModelJson, weightBytes: Uint8Array, rgb: Uint8Array, h: number, w: number): Map3 {
  const weights = new Map<string, Float32Array>();
  let off = 0;
  for (const spec of model.weightsManifest.flatMap((g) => g.weights)) {
    const n = spec.shape.reduce((a, b) => a * b, 1);
    weights.set(spec.name, new Float32Array(weightBytes.slice(off, off + n * 4).buffer));
    off += n * 4;
  }
  const cfg = model.modelTopology.model_config.config;
  const out = new Map<string, Map3>();
  for (const layer of cfg.layers) {
    const ins = (layer.inbound_nodes[0] ?? []).map(([n]) => out.get(n) as Map3);
    const c = layer.config;
    let r: Map3;
    if (layer.class_name === 'InputLayer') r = { h, w, c: 3, v: Float64Array.from(rgb) };
    else if (layer.class_name === 'Conv2D') {
      const [kh, kw] = c.kernel_size as number[];
      const x = ins[0];
      const k = weights.get(`${layer.name}/kernel`) as Float32Array;
      const b = weights.get(`${layer.name}/bias`) as Float32Array;
      const O = c.filters as number;
      const ph = c.padding === 'same' ? (kh - 1) / 2 : 0;
      const pw = c.padding === 'same' ? (kw - 1) / 2 : 0;
      const v = new Float64Array(x.h * x.w * O);
      for (let y = 0; y < x.h; y++)
        for (let xx = 0; xx < x.w; xx++)
          for (let o = 0; o < O; o++) {
            let s = b[o];
            for (let dy = 0; dy < kh; dy++)
              for (let dx = 0; dx < kw; dx++) {
                const sy = y + dy - ph;
                const sx = xx + dx - pw;
                if (sy < 0 || sx < 0 || sy >= x.h || sx >= x.w) continue;
                for (let i = 0; i < x.c; i++) s += x.v[(sy * x.w + sx) * x.c + i] * k[((dy * kw + dx) * x.c + i) * O + o];
              }
            v[(y * x.w + xx) * O + o] = s;
          }
      r = { h: x.h, w: x.w, c: O, v };
    } else if (layer.class_name === 'Activation') r = { ...ins[0], v: ins[0].v.map((a) => Math.max(0, a)) };
    else if (layer.class_name === 'Concatenate') {
      const C = ins.reduce((t, m) => t + m.c, 0);
      const v = new Float64Array(ins[0].h * ins[0].w * C);
      for (let p = 0; p < ins[0].h * ins[0].w; p++) {
        let at = 0;
        for (const m of ins) for (let i = 0; i < m.c; i++) v[p * C + at++] = m.v[p * m.c + i];
      }
      r = { h: ins[0].h, w: ins[0].w, c: C, v };
    } else if (layer.class_name === 'Add') r = { ...ins[0], v: ins[0].v.map((_, i) => ins.reduce((t, m) => t + m.v[i], 0)) };
    else if (layer.class_name === 'UpSampling2D') {
      const [sh, sw] = c.size as number[];
      const x = ins[0];
      const v = new Float64Array(x.h * sh * x.w * sw * x.c);
      for (let y = 0; y < x.h * sh; y++)
        for (let xx = 0; xx < x.w * sw; xx++)
          for (let i = 0; i < x.c; i++) v[(y * x.w * sw + xx) * x.c + i] = x.v[(Math.floor(y / sh) * x.w + Math.floor(xx / sw)) * x.c + i];
      r = { h: x.h * sh, w: x.w * sw, c: x.c, v };
    } else throw new Error(`the reference does not know ${layer.class_name}`);
    out.set(layer.name, r);
  }
  return out.get(cfg.output_layers[0][0]) as Map3;
}

describe('esrgan-slim as an ONNX graph', () => {
  for (const scale of [2, 3]) {
    test(`${scale}×: onnxruntime's answer is the Keras layers' answer, byte for byte within rounding`, async () => {
      const { model, weights } = load(scale);
      const h = 6;
      const w = 9;
      const rgb = new Uint8Array(h * w * 3);
      for (let i = 0; i < rgb.length; i++) rgb[i] = (i * 37 + ((i / 3) | 0) * 11) % 256;
      const session = await ort.InferenceSession.create(esrganToOnnx(model, weights));
      const result = await session.run({ rgb: new ort.Tensor('uint8', rgb, [1, h, w, 3]) });
      assert.deepEqual(result.rgb_out.dims, [1, h * scale, w * scale, 3]);
      const got = result.rgb_out.data as Uint8Array;
      const want = reference(model, weights, rgb, h, w);
      assert.deepEqual([want.h, want.w, want.c], [h * scale, w * scale, 3]);
      let worst = 0;
      let clipped = 0;
      for (let i = 0; i < got.length; i++) {
        const expect = Math.min(255, Math.max(0, Math.round(want.v[i])));
        if (expect === 0 || expect === 255) clipped++;
        worst = Math.max(worst, Math.abs(got[i] - expect));
      }
      // Float32 kernels against float64 sums: a value on a .5 boundary may round the other way.
      assert.ok(worst <= 1, `largest difference ${worst}`);
      assert.ok(clipped < got.length / 2, 'the picture is not mostly clipped (the comparison means something)');
      await session.release();
    });
  }

  test('a layer or setting it does not know is refused, not guessed', () => {
    const { model, weights } = load(2);
    const withLayer = (change: (l: Record<string, unknown>) => void) => {
      const copy = structuredClone(model);
      change(copy.modelTopology.model_config.config.layers[1] as unknown as Record<string, unknown>);
      return () => esrganToOnnx(copy, weights);
    };
    assert.throws(
      withLayer((l) => (l.class_name = 'SeparableConv2D')),
      /unsupported layer SeparableConv2D/,
    );
    assert.throws(
      withLayer((l) => ((l.config as Record<string, unknown>).strides = [2, 2])),
      /unsupported convolution/,
    );
    assert.throws(() => esrganToOnnx(model, weights.subarray(0, weights.length - 4)), /weights are/);
  });
});
