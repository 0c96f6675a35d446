// "Remember that …": the fact a user message explicitly asks to be remembered, offered as a suggestion the user
// may accept (nothing is saved without that). Only explicit phrasing at the start of the message counts.

const MAX = 1000;
// "remember (that) …", "please remember: …", "don't forget (that) …", "keep in mind (that) …", "note that …",
// optionally after "can you" / "could you" / "please", and "for future reference, …".
const ASK =
  /^(?:(?:hey|ok|okay)[,!]?\s+)?(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:remember|don['’]t\s+forget|do\s+not\s+forget|keep\s+in\s+mind|note|make\s+a\s+note)(?:\s+(?:that|this))?\s*[:,-]?\s+([\s\S]+)$/i;
const FOR_LATER = /^for\s+future\s+reference\s*[:,-]?\s+([\s\S]+)$/i;

/** The fact to offer saving, or null when the message does not ask for it. */
export function memorySuggestion(text: string): string | null {
  const clean = text.replace(/\s+/g, ' ').trim();
  const m = ASK.exec(clean) ?? FOR_LATER.exec(clean);
  if (!m) return null;
  let fact = m[1].trim().replace(/[\s,;:]+$/, '');
  // "…, please." / "…, thanks!" add nothing to the fact; a question ("remember what I said?") is no fact at all.
  fact = fact.replace(/[,.]?\s*(?:please|thanks|thank you)[.!]*$/i, '').replace(/[.!]+$/, '');
  if (fact.endsWith('?') || fact.length < 3) return null;
  if (/^(?:what|when|where|which|who|how|why|if|whether|to\b)/i.test(fact)) return null;
  fact = fact[0].toUpperCase() + fact.slice(1);
  return fact.length > MAX ? `${fact.slice(0, MAX - 1)}…` : fact;
}
