// Suggestions the user waved away ("Not now"), per browser, so a reload does not offer them again. Bounded: the
// oldest are forgotten first.
const KEY = 'lagoon.memory.dismissed';
const MAX = 300;

function read(): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function isDismissed(messageId: string): boolean {
  return typeof localStorage !== 'undefined' && read().includes(messageId);
}

export function dismiss(messageId: string): void {
  try {
    localStorage.setItem(KEY, JSON.stringify([...read().filter((x) => x !== messageId), messageId].slice(-MAX)));
  } catch {
    // Storage full or blocked: the suggestion simply comes back after a reload.
  }
}
