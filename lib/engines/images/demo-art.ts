// The demo generator's picture, as SVG: deterministic in the prompt and the seed, with no model behind it. The prompt
// picks the palette (colour words and a few themes; colours named in the negative prompt are left out) and a few
// motifs (sun or moon, mountains, water, stars, trees, city); the seed picks the composition; more steps add more,
// smaller shapes; the style preset picks the shapes and the finish (demo-generate.ts). It makes no claim to depict
// the prompt beyond those words.

/** FNV-1a, 32-bit. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** mulberry32: a small, fast, seedable PRNG. */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const COLOURS: Record<string, string> = {
  red: '#d7263d',
  crimson: '#b0183a',
  orange: '#f46036',
  amber: '#ffb000',
  gold: '#e2b93b',
  golden: '#e2b93b',
  yellow: '#f5d547',
  lime: '#a3d65c',
  green: '#2e933c',
  emerald: '#1f9e74',
  teal: '#1b998b',
  turquoise: '#30c5c0',
  cyan: '#3ec1d3',
  aqua: '#5ee0e6',
  blue: '#2660a4',
  azure: '#3a86ff',
  navy: '#1b2a49',
  indigo: '#3d348b',
  violet: '#7b2cbf',
  purple: '#6a3d9a',
  magenta: '#c2187a',
  pink: '#f49cbb',
  rose: '#e56b8a',
  brown: '#7f4f24',
  beige: '#e8d8b0',
  white: '#f4f4f2',
  grey: '#8d8f94',
  gray: '#8d8f94',
  silver: '#c0c4c8',
  black: '#121212',
};

const THEMES: Record<string, string[]> = {
  sunset: ['orange', 'magenta', 'purple', 'gold'],
  sunrise: ['gold', 'pink', 'orange', 'azure'],
  dawn: ['pink', 'gold', 'azure'],
  dusk: ['indigo', 'rose', 'orange'],
  night: ['navy', 'indigo', 'black', 'silver'],
  ocean: ['blue', 'teal', 'turquoise', 'white'],
  sea: ['blue', 'teal', 'turquoise', 'white'],
  lagoon: ['turquoise', 'teal', 'aqua', 'beige'],
  lake: ['blue', 'teal', 'green'],
  water: ['blue', 'aqua', 'white'],
  forest: ['green', 'emerald', 'brown', 'lime'],
  jungle: ['emerald', 'green', 'lime', 'gold'],
  desert: ['beige', 'amber', 'orange', 'brown'],
  snow: ['white', 'silver', 'azure'],
  winter: ['white', 'azure', 'silver', 'navy'],
  fire: ['red', 'orange', 'amber', 'yellow'],
  autumn: ['orange', 'brown', 'red', 'gold'],
  spring: ['lime', 'pink', 'yellow', 'green'],
  space: ['black', 'indigo', 'violet', 'white'],
  neon: ['magenta', 'cyan', 'violet', 'lime'],
  candy: ['pink', 'aqua', 'yellow', 'violet'],
  city: ['grey', 'navy', 'amber', 'silver'],
};

export type Motif = 'sun' | 'moon' | 'mountains' | 'water' | 'stars' | 'trees' | 'city';
const MOTIF_WORDS: Record<string, Motif> = {
  sun: 'sun',
  sunset: 'sun',
  sunrise: 'sun',
  moon: 'moon',
  mountain: 'mountains',
  mountains: 'mountains',
  hills: 'mountains',
  hill: 'mountains',
  sea: 'water',
  ocean: 'water',
  lagoon: 'water',
  lake: 'water',
  river: 'water',
  water: 'water',
  beach: 'water',
  stars: 'stars',
  star: 'stars',
  night: 'stars',
  space: 'stars',
  tree: 'trees',
  trees: 'trees',
  forest: 'trees',
  jungle: 'trees',
  city: 'city',
  skyline: 'city',
  buildings: 'city',
};

const words = (text: string | undefined) => (text ?? '').toLowerCase().match(/[a-z]+/g) ?? [];

/** The prompt's colours, in order of mention, without those the negative prompt names; topped up from the prompt's hash. */
export function paletteOf(prompt: string, negativePrompt?: string): string[] {
  const banned = new Set<string>();
  for (const w of words(negativePrompt)) {
    if (Object.hasOwn(COLOURS, w)) banned.add(COLOURS[w]);
    if (Object.hasOwn(THEMES, w)) for (const c of THEMES[w]) banned.add(COLOURS[c]);
  }
  const out: string[] = [];
  const add = (hex: string) => {
    if (!banned.has(hex) && !out.includes(hex)) out.push(hex);
  };
  for (const w of words(prompt)) {
    if (Object.hasOwn(COLOURS, w)) add(COLOURS[w]);
    else if (Object.hasOwn(THEMES, w)) for (const c of THEMES[w]) add(COLOURS[c]);
  }
  // A harmony around a hue of the prompt's own: the same prompt keeps its colours whatever the seed.
  const hue = hash32(prompt.toLowerCase()) % 360;
  for (let i = 0; out.length < 4 && i < 12; i++)
    add(hsl((hue + [0, 150, 210, 30, 60, 300][i % 6] + 7 * Math.floor(i / 6)) % 360, 55 + (i % 3) * 12, 35 + (i % 4) * 12));
  return out;
}

export function motifsOf(prompt: string): Motif[] {
  const out: Motif[] = [];
  for (const w of words(prompt)) if (Object.hasOwn(MOTIF_WORDS, w) && !out.includes(MOTIF_WORDS[w])) out.push(MOTIF_WORDS[w]);
  return out;
}

function hsl(h: number, s: number, l: number): string {
  const a = (s / 100) * Math.min(l / 100, 1 - l / 100);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    const c = l / 100 - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(255 * c)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}

export type ShapeKind = 'blob' | 'polygon' | 'stroke';

export interface ArtOptions {
  prompt: string;
  negativePrompt?: string;
  seed: number;
  width: number;
  height: number;
  steps: number;
  shapes: ShapeKind;
  /** A dark ground (neon styles). */
  dark: boolean;
}

const n1 = (x: number) => x.toFixed(1);

export function demoSvg(o: ArtOptions): string {
  const { width: W, height: H } = o;
  const rand = prng(hash32(`${o.prompt}\u0000${o.seed}`));
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const palette = paletteOf(o.prompt, o.negativePrompt);
  const motifs = motifsOf(o.prompt);
  const min = Math.min(W, H);
  const defs: string[] = [];
  const body: string[] = [];
  const angle = rand() * Math.PI;
  const [c0, c1] = o.dark ? ['#07060d', palette[0]] : [palette[0], palette[1]];
  defs.push(
    `<linearGradient id="bg" x1="${n1(0.5 - Math.cos(angle) / 2)}" y1="${n1(0.5 - Math.sin(angle) / 2)}" x2="${n1(0.5 + Math.cos(angle) / 2)}" y2="${n1(0.5 + Math.sin(angle) / 2)}">` +
      `<stop offset="0" stop-color="${c0}"/><stop offset="1" stop-color="${c1}" stop-opacity="${o.dark ? 0.35 : 1}"/></linearGradient>`,
  );
  body.push(`<rect width="${W}" height="${H}" fill="url(#bg)"/>`);
  const horizon = H * (0.55 + rand() * 0.15);

  for (const m of motifs) {
    if (m === 'sun' || m === 'moon') {
      const r = min * (m === 'sun' ? 0.12 : 0.08);
      const fill = m === 'sun' ? COLOURS.amber : '#f0efe6';
      body.push(`<circle cx="${n1(W * (0.2 + rand() * 0.6))}" cy="${n1(horizon * (0.35 + rand() * 0.3))}" r="${n1(r)}" fill="${fill}" opacity="0.92"/>`);
    } else if (m === 'stars') {
      for (let i = 0; i < 40 + o.steps * 4; i++)
        body.push(
          `<circle cx="${n1(rand() * W)}" cy="${n1(rand() * horizon)}" r="${n1(0.6 + rand() * 1.6)}" fill="#fff" opacity="${n1(0.4 + rand() * 0.6)}"/>`,
        );
    } else if (m === 'mountains') {
      let d = `M0 ${n1(horizon)}`;
      for (let x = 0; x <= W; x += W / 6)
        d += ` L${n1(x + (rand() * W) / 12)} ${n1(horizon - min * (0.1 + rand() * 0.3))} L${n1(x + W / 12)} ${n1(horizon - min * rand() * 0.08)}`;
      body.push(`<path d="${d} L${W} ${H} L0 ${H} Z" fill="${palette[2 % palette.length]}" opacity="0.9"/>`);
    } else if (m === 'water') {
      body.push(`<rect y="${n1(horizon)}" width="${W}" height="${n1(H - horizon)}" fill="${COLOURS.teal}" opacity="0.75"/>`);
      for (let i = 0; i < 6 + o.steps; i++) {
        const y = horizon + (H - horizon) * rand();
        body.push(
          `<path d="M${n1(rand() * W)} ${n1(y)} q ${n1(min * 0.04)} ${n1(-min * 0.012)} ${n1(min * 0.08)} 0" stroke="#fff" stroke-width="2" fill="none" opacity="0.5"/>`,
        );
      }
    } else if (m === 'trees') {
      for (let i = 0; i < 5 + o.steps; i++) {
        const x = rand() * W;
        const h = min * (0.08 + rand() * 0.18);
        const base = horizon + rand() * (H - horizon) * 0.5;
        body.push(
          `<path d="M${n1(x)} ${n1(base - h)} L${n1(x - h / 3)} ${n1(base)} L${n1(x + h / 3)} ${n1(base)} Z" fill="${COLOURS.emerald}" opacity="0.9"/>`,
        );
      }
    } else if (m === 'city') {
      for (let x = 0; x < W; x += min * (0.04 + rand() * 0.06)) {
        const h = min * (0.1 + rand() * 0.35);
        body.push(
          `<rect x="${n1(x)}" y="${n1(horizon - h)}" width="${n1(min * 0.05)}" height="${n1(h + H - horizon)}" fill="${COLOURS.navy}" opacity="0.85"/>`,
        );
      }
    }
  }

  // More steps: more, smaller shapes, drawn after the large ones (detail on top of the composition).
  const count = Math.min(90, 6 + 3 * o.steps);
  for (let i = 0; i < count; i++) {
    const colour = pick(palette);
    const size = min * (0.35 * (1 - i / (count + 4)) * (0.4 + rand() * 0.6) + 0.01);
    const cx = rand() * W;
    const cy = rand() * H;
    const opacity = 0.15 + rand() * 0.5;
    if (o.shapes === 'stroke') {
      body.push(
        `<circle cx="${n1(cx)}" cy="${n1(cy)}" r="${n1(size)}" fill="none" stroke="${colour}" stroke-width="${n1(1 + rand() * min * 0.006)}" opacity="${n1(0.5 + opacity)}"/>`,
      );
    } else if (o.shapes === 'polygon') {
      const sides = 3 + Math.floor(rand() * 3);
      const turn = rand() * Math.PI * 2;
      const pts = Array.from({ length: sides }, (_, k) => {
        const a = turn + (k / sides) * Math.PI * 2;
        const r = size * (0.6 + rand() * 0.4);
        return `${n1(cx + Math.cos(a) * r)},${n1(cy + Math.sin(a) * r)}`;
      });
      body.push(`<polygon points="${pts.join(' ')}" fill="${colour}" opacity="${n1(opacity + 0.2)}"/>`);
    } else {
      defs.push(
        `<radialGradient id="g${i}"><stop offset="0" stop-color="${colour}" stop-opacity="0.9"/><stop offset="1" stop-color="${colour}" stop-opacity="0"/></radialGradient>`,
      );
      body.push(
        `<ellipse cx="${n1(cx)}" cy="${n1(cy)}" rx="${n1(size)}" ry="${n1(size * (0.5 + rand() * 0.8))}" transform="rotate(${Math.floor(rand() * 180)} ${n1(cx)} ${n1(cy)})" fill="url(#g${i})" opacity="${n1(opacity + 0.3)}"/>`,
      );
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}"><defs>${defs.join('')}</defs>${body.join('')}</svg>`;
}
