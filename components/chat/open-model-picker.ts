// "Pick another model" from anywhere in the chat (an error banner, the composer's notice): the picker in the header
// listens for this event and opens, focused, so the choice is one step away.
const EVENT = 'lagoon:open-model-picker';

export function openModelPicker(): void {
  window.dispatchEvent(new Event(EVENT));
}

export function onOpenModelPicker(open: () => void): () => void {
  window.addEventListener(EVENT, open);
  return () => window.removeEventListener(EVENT, open);
}
