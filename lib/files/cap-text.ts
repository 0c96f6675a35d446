// Caps extracted text (a document, a scraped page) at a character budget, saying so in the text itself.

export function capText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let cut = maxChars;
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--; // do not split a surrogate pair
  const shown = cut.toLocaleString('en-US');
  const total = text.length.toLocaleString('en-US');
  return `${text.slice(0, cut)}\n\n[Truncated: showing the first ${shown} of ${total} characters]`;
}
