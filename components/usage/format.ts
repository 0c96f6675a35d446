// The usage dashboard's unit names and JSON-RPC method lists. Numbers, money and days go through the app's one
// formatter in the page's language (components/i18n/format.ts).

const UNIT_NAMES: Record<string, [string, string]> = {
  rpc_credit: ['RPC credit', 'RPC credits'],
  image: ['image', 'images'],
  character: ['character', 'characters'],
  second: ['second', 'seconds'],
  call: ['call', 'calls'],
};

/** "1,250 RPC credits" for usage billed in another unit than tokens (undefined for tokens); `count` groups the figure. */
export function formatUnits(unit: string | undefined, quantity: number | undefined, count: (n: number) => string): string | undefined {
  if (!unit || unit === 'token') return undefined;
  const [one, many] = UNIT_NAMES[unit] ?? [unit, unit];
  return `${count(quantity ?? 0)} ${quantity === 1 ? one : many}`;
}

/** A JSON-RPC call's methods in a few words: "eth_call ×3, eth_getBalance" (the most used first, at most `max`). */
export function formatRpcMethods(methods: { method: string; calls: number }[], max = 3): string {
  const sorted = [...methods].sort((a, b) => b.calls - a.calls);
  const shown = sorted.slice(0, max).map((m) => (m.calls > 1 ? `${m.method} ×${m.calls}` : m.method));
  return sorted.length > max ? `${shown.join(', ')} +${sorted.length - max} more` : shown.join(', ');
}
