// Draws the installed app's icons (public/icons/*.png) from the wave mark (app/icon.svg) with sharp. The PNGs are
// committed; run this again after changing the mark: node scripts/pwa-icons.ts
//   icon-192.png, icon-512.png   "any": the rounded tile as it is
//   maskable-512.png             "maskable": full-bleed colour, the waves inside the 80 % safe zone (the platform crops)
//   apple-touch-icon.png         180 px, full-bleed (iOS rounds the corners itself)
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'public', 'icons');
const mark = readFileSync(join(root, 'app', 'icon.svg'), 'utf8');

const TEAL = '#0f766e';
const WAVES =
  '<path d="M6 13c3 0 3-3 6.7-3s3.6 3 6.6 3 3.7-3 6.7-3M6 20c3 0 3-3 6.7-3s3.6 3 6.6 3 3.7-3 6.7-3" fill="none" stroke="#fff" stroke-width="2.4" stroke-linecap="round"/>';

/** A square full-bleed tile with the waves scaled to `scale` of it, centred (for maskable and Apple icons). */
const fullBleed = (scale: number) => {
  const inset = (32 * (1 - scale)) / 2;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" fill="${TEAL}"/><g transform="translate(${inset} ${inset}) scale(${scale})">${WAVES}</g></svg>`;
};

async function png(svg: string, size: number, file: string): Promise<void> {
  await sharp(Buffer.from(svg), { density: (72 * size) / 32 })
    .resize(size, size)
    .png({ compressionLevel: 9 })
    .toFile(join(out, file));
  console.log(`public/icons/${file} (${size}×${size})`);
}

mkdirSync(out, { recursive: true });
await png(mark, 192, 'icon-192.png');
await png(mark, 512, 'icon-512.png');
// The waves span 20 of 32 units; at 0.7 they sit well inside the maskable safe zone (a circle of 80 % diameter).
await png(fullBleed(0.7), 512, 'maskable-512.png');
await png(fullBleed(0.85), 180, 'apple-touch-icon.png');
