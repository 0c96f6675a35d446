// The slug in a character page's URL (/characters/[slug]), as the API takes it. Shared by the server page files.

/** Decoded; a malformed escape is left as it is (the API then answers 404, rather than the page crashing). */
export function decodeSlug(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
