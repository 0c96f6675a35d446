// The ESRGAN worker process: onnxruntime-node's CPU kernels running @upscalerjs/esrgan-slim's RDN weights, read from
// the package on disk and turned into an ONNX graph here (esrgan-onnx.ts; no network). onnxruntime's run is native and
// synchronous under its promise, so it runs here, never on the server's event loop; a process rather than a thread
// because only a process can be stopped midway (ending a worker thread inside onnxruntime aborts the whole process).
// One job at a time, in tiles with a margin, so memory stays bounded whatever the image size and tile seams do not
// show. The server (esrgan.ts) sends RGB pixels over the IPC channel and gets RGB pixels back.
import { createRequire } from 'node:module';
import { esrganToOnnx, readEsrganSlim } from './esrgan-onnx.ts';

const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node') as typeof import('onnxruntime-node');

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

/** onnxruntime's threads, the process's one argument: 0 lets it choose (one per physical core). */
const threads = Number(process.argv[2] ?? 0) || 0;

/** Context around each tile, in input pixels, cut away after the model ran: no seams between tiles. */
const MARGIN = 8;

const sessions = new Map<number, Promise<import('onnxruntime-node').InferenceSession>>();

function session(scale: number) {
  let s = sessions.get(scale);
  if (!s) {
    const { model, weights } = readEsrganSlim(scale);
    s = ort.InferenceSession.create(esrganToOnnx(model, weights), { intraOpNumThreads: threads, graphOptimizationLevel: 'all' });
    sessions.set(scale, s);
  }
  return s;
}

async function upscale(msg: UpscaleMessage): Promise<Uint8Array> {
  const net = await session(msg.scale);
  const { width: W, height: H, scale: s, tile } = msg;
  const out = new Uint8Array(W * s * H * s * 3);
  for (let ty = 0; ty < H; ty += tile) {
    for (let tx = 0; tx < W; tx += tile) {
      const th = Math.min(tile, H - ty);
      const tw = Math.min(tile, W - tx);
      const x0 = Math.max(0, tx - MARGIN);
      const y0 = Math.max(0, ty - MARGIN);
      const x1 = Math.min(W, tx + tw + MARGIN);
      const y1 = Math.min(H, ty + th + MARGIN);
      const iw = x1 - x0;
      const patch = new Uint8Array(iw * (y1 - y0) * 3);
      for (let row = y0; row < y1; row++) patch.set(msg.pixels.subarray((row * W + x0) * 3, (row * W + x1) * 3), (row - y0) * iw * 3);
      const result = await net.run({ rgb: new ort.Tensor('uint8', patch, [1, y1 - y0, iw, 3]) });
      const data = result.rgb_out.data as Uint8Array;
      const pw = iw * s;
      const offX = (tx - x0) * s;
      const offY = (ty - y0) * s;
      for (let row = 0; row < th * s; row++) {
        const src = ((offY + row) * pw + offX) * 3;
        out.set(data.subarray(src, src + tw * s * 3), ((ty * s + row) * W * s + tx * s) * 3);
      }
      result.rgb_out.dispose();
    }
  }
  return out;
}

const reply = (r: UpscaleReply) => process.send?.(r);
process.on('message', (msg: UpscaleMessage) => {
  upscale(msg).then(
    (pixels) => reply({ id: msg.id, ok: true, pixels, width: msg.width * msg.scale, height: msg.height * msg.scale }),
    (e: unknown) => reply({ id: msg.id, ok: false, error: e instanceof Error ? e.message : String(e) }),
  );
});
// The server that started it went away: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
