// The ESRGAN worker thread: TensorFlow.js on its wasm backend, with @upscalerjs/esrgan-slim's RDN weights read from
// the package on disk (tf.io.fromMemory: no network, no fetch). One job at a time, in tiles with a margin, so memory
// stays bounded whatever the image size and tile seams do not show. The main thread (esrgan.ts) sends RGB pixels
// and gets RGB pixels back, both as transferred buffers.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';

const require = createRequire(import.meta.url);
// The CommonJS builds: tfjs-core, the layers API (the weights are a Keras layers model) and the wasm backend.
const tf = require('@tensorflow/tfjs-core') as typeof import('@tensorflow/tfjs-core');
const tfl = require('@tensorflow/tfjs-layers') as typeof import('@tensorflow/tfjs-layers');
const wasm = require('@tensorflow/tfjs-backend-wasm') as typeof import('@tensorflow/tfjs-backend-wasm');

export interface UpscaleMessage {
  id: number;
  scale: 2 | 3 | 4;
  width: number;
  height: number;
  tile: number;
  /** RGB, width × height × 3. */
  pixels: Uint8Array;
}

export type UpscaleReply = { id: number; ok: true; pixels: Uint8Array; width: number; height: number } | { id: number; ok: false; error: string };

/** Context around each tile, in input pixels, cut away after the model ran: no seams between tiles. */
const MARGIN = 8;

const ready = (async () => {
  wasm.setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`);
  await tf.setBackend('wasm');
  await tf.ready();
})();

/** The package's folder: its exports map hides package.json, so walk up from its main file. */
function packageRoot(name: string): string {
  let dir = path.dirname(require.resolve(name));
  while (!fs.existsSync(path.join(dir, 'package.json')) || JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name !== name) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`cannot find the folder of ${name}`);
    dir = up;
  }
  return dir;
}

const models = new Map<number, Promise<import('@tensorflow/tfjs-layers').LayersModel>>();

function model(scale: number) {
  let m = models.get(scale);
  if (!m) {
    m = (async () => {
      await ready;
      const dir = path.join(packageRoot('@upscalerjs/esrgan-slim'), 'models', `x${scale}`);
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
      const groups = manifest.weightsManifest as { paths: string[]; weights: import('@tensorflow/tfjs-core').io.WeightsManifestEntry[] }[];
      const weights = Buffer.concat(groups.flatMap((g) => g.paths.map((p) => fs.readFileSync(path.join(dir, p)))));
      const weightData = weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength) as ArrayBuffer;
      return tfl.loadLayersModel(tf.io.fromMemory({ modelTopology: manifest.modelTopology, weightSpecs: groups.flatMap((g) => g.weights), weightData }));
    })();
    models.set(scale, m);
  }
  return m;
}

async function upscale(msg: UpscaleMessage): Promise<Uint8Array> {
  const net = await model(msg.scale);
  const { width: W, height: H, scale: s, tile } = msg;
  const out = new Uint8Array(W * s * H * s * 3);
  const input = tf.tensor3d(msg.pixels, [H, W, 3], 'int32');
  try {
    for (let ty = 0; ty < H; ty += tile) {
      for (let tx = 0; tx < W; tx += tile) {
        const th = Math.min(tile, H - ty);
        const tw = Math.min(tile, W - tx);
        const x0 = Math.max(0, tx - MARGIN);
        const y0 = Math.max(0, ty - MARGIN);
        const x1 = Math.min(W, tx + tw + MARGIN);
        const y1 = Math.min(H, ty + th + MARGIN);
        // The model maps 0–255 to 0–255 (RDN, upscalerjs's inputRange/outputRange).
        const patch = tf.tidy(() => {
          // Functional ops: the chained forms (x.slice()) need the union package's registrations.
          const x = tf.expandDims(tf.cast(tf.slice(input, [y0, x0, 0], [y1 - y0, x1 - x0, 3]), 'float32'), 0);
          return tf.squeeze(tf.round(tf.clipByValue(net.predict(x) as import('@tensorflow/tfjs-core').Tensor4D, 0, 255)), [0]);
        });
        const data = await patch.data();
        patch.dispose();
        const pw = (x1 - x0) * s;
        const offX = (tx - x0) * s;
        const offY = (ty - y0) * s;
        for (let row = 0; row < th * s; row++) {
          const src = ((offY + row) * pw + offX) * 3;
          const dst = ((ty * s + row) * W * s + tx * s) * 3;
          for (let i = 0; i < tw * s * 3; i++) out[dst + i] = data[src + i];
        }
      }
    }
  } finally {
    input.dispose();
  }
  return out;
}

parentPort?.on('message', (msg: UpscaleMessage) => {
  upscale(msg).then(
    (pixels) =>
      parentPort?.postMessage({ id: msg.id, ok: true, pixels, width: msg.width * msg.scale, height: msg.height * msg.scale } satisfies UpscaleReply, [
        pixels.buffer as ArrayBuffer,
      ]),
    (e: unknown) => parentPort?.postMessage({ id: msg.id, ok: false, error: e instanceof Error ? e.message : String(e) } satisfies UpscaleReply),
  );
});
