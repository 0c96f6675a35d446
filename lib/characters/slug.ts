// Slugs, the Public ID that `character_slug` takes: lower-case words of the name and a short random suffix, so two
// characters with one name never collide and a slug does not reveal how many exist.
import { randomBytes } from 'node:crypto';
import { CHARACTER_LIMITS } from './limits.ts';

export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

const SUFFIX_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

function suffix(n = 6): string {
  const bytes = randomBytes(n);
  let out = '';
  for (const b of bytes) out += SUFFIX_ALPHABET[b % SUFFIX_ALPHABET.length];
  return out;
}

/** `Ada the Archivist` → `ada-the-archivist-k3f9qz`; a name with no latin letters or digits → `character-k3f9qz`. */
export function slugFor(name: string): string {
  const words = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${words || 'character'}-${suffix()}`;
}

/** A slug an owner chose: its problem in words, or null when it is fine. */
export function slugProblem(slug: string): string | null {
  const { slugMin, slugMax } = CHARACTER_LIMITS;
  if (slug.length < slugMin || slug.length > slugMax) return `must be ${slugMin}-${slugMax} characters`;
  if (!SLUG_PATTERN.test(slug) || slug.includes('--')) return 'may hold only a-z, 0-9 and single hyphens, starting and ending with a letter or digit';
  return null;
}
