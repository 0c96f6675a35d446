// The demo video engine's pictures: colour fields that move, drawn from the prompt and the seed alone (the same
// prompt and seed give the same clip, frame for frame). No model and no weights: the clip does not depict the prompt,
// and /models says so. Pure and synchronous; it runs in the demo's worker thread (demo-worker.ts).

/** FNV-1a over the text: the prompt's share of the pattern. */
function fnv(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/** mulberry32: a small deterministic generator. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hsl(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h * 12) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1));
  return [Math.round(f(0) * 255), Math.round(f(8) * 255), Math.round(f(4) * 255)];
}

export interface FrameParams {
  width: number;
  height: number;
  fps: number;
  prompt: string;
  seed: number;
}

const TABLE = 1024;

/** Draws frame after frame into one RGB24 buffer; `draw(i)` returns it filled with frame i. */
export function frameDrawer(p: FrameParams): (i: number) => Buffer {
  const rnd = random(fnv(p.prompt) ^ (p.seed >>> 0));
  const { width: w, height: h } = p;
  // A palette of 256 colours blended from three hues the prompt and seed pick.
  const base = rnd();
  const hues = [base, base + 0.25 + rnd() * 0.15, base + 0.55 + rnd() * 0.15];
  const light = [0.35, 0.55, 0.7];
  const palette = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    const x = (i / 256) * 3;
    const j = Math.floor(x);
    const f = x - j;
    const a = hsl(hues[j % 3] % 1, 0.8, light[j % 3]);
    const b = hsl(hues[(j + 1) % 3] % 1, 0.8, light[(j + 1) % 3]);
    for (let c = 0; c < 3; c++) palette[i * 3 + c] = Math.round(a[c] * (1 - f) + b[c] * f);
  }
  // Sine in table steps (0…63), so a pixel is a few lookups and additions.
  const sine = new Uint8Array(TABLE);
  for (let i = 0; i < TABLE; i++) sine[i] = Math.round(31.5 + 31.5 * Math.sin((i / TABLE) * 2 * Math.PI));
  // Distances from a centre, for a ripple that moves: a table twice the frame, read at an offset each frame.
  const dw = w * 2;
  const dist = new Uint16Array(dw * h * 2);
  for (let y = 0; y < h * 2; y++) for (let x = 0; x < dw; x++) dist[y * dw + x] = Math.round(Math.hypot(x - w, y - h));
  const fx = 1 + Math.floor(rnd() * 5);
  const fy = 1 + Math.floor(rnd() * 5);
  const fxy = 1 + Math.floor(rnd() * 3);
  const fr = 2 + Math.floor(rnd() * 6);
  const speed = [20 + rnd() * 40, 20 + rnd() * 40, 10 + rnd() * 30, 30 + rnd() * 60];
  const orbit = [rnd() * 0.4 + 0.1, rnd() * 0.4 + 0.1, rnd() * 2 + 0.5, rnd() * 2 + 0.5];
  // Scale so the patterns repeat a few times across the frame whatever its size.
  const scale = (TABLE * 2) / Math.max(w, h);
  const diag = fxy * scale * 0.25;
  const xs = new Int32Array(w);
  const ys = new Int32Array(h);
  const out = Buffer.alloc(w * h * 3);
  return (i: number) => {
    const t = i / p.fps;
    const ox = Math.round(w / 2 + Math.sin(t * orbit[2]) * w * orbit[0]);
    const oy = Math.round(h / 2 + Math.cos(t * orbit[3]) * h * orbit[1]);
    const s0 = Math.round(t * speed[0]);
    const s1 = Math.round(t * speed[1]);
    const s2 = Math.round(t * speed[2]);
    const s3 = Math.round(t * speed[3]);
    const shift = Math.round(t * 24);
    for (let x = 0; x < w; x++) xs[x] = Math.floor(x * scale * fx * 0.25);
    for (let y = 0; y < h; y++) ys[y] = Math.floor(y * scale * fy * 0.25);
    let o = 0;
    for (let y = 0; y < h; y++) {
      const row = (y - oy + h) * dw + (w - ox);
      const yv = sine[(ys[y] + s1) & (TABLE - 1)];
      for (let x = 0; x < w; x++) {
        const diagonal = sine[((((x + y) * diag) | 0) + s2) & (TABLE - 1)];
        const v = sine[(xs[x] + s0) & (TABLE - 1)] + yv + diagonal + sine[(dist[row + x] * fr + s3) & (TABLE - 1)];
        const c = ((v * 2 + shift) & 255) * 3;
        out[o++] = palette[c];
        out[o++] = palette[c + 1];
        out[o++] = palette[c + 2];
      }
    }
    return out;
  };
}

/** The soundtrack's pitch: a note the prompt and seed choose (110–440 Hz). */
export function toneOf(prompt: string, seed: number): number {
  return Math.round(110 * 2 ** (random(fnv(prompt) ^ (seed >>> 0) ^ 0x9e3779b9)() * 2));
}
