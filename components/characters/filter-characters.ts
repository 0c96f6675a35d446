// The characters page's search: every word must appear in the name, the description or a tag (case-insensitive).
import type { AppCharacter } from '@/lib/app/wire.ts';

export function filterCharacters(list: AppCharacter[], query: string): AppCharacter[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return list;
  return list.filter((c) => {
    const hay = [c.name, c.description, ...c.tags].join('\n').toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}
