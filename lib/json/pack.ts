// Long arrays of numbers packed into one buffer (the JSON thread's `typed` parse): a structured clone copies a JS
// array element by element (2,048 vectors of 3,072 floats took the receiving loop about a second), a typed array's
// buffer in one move, or none when it is transferred.

/** Arrays of at least this many numbers are packed; shorter ones are not worth a view each. */
export const PACK_MIN_LENGTH = 64;

const packable = (v: unknown): v is number[] => Array.isArray(v) && v.length >= PACK_MIN_LENGTH && v.every((x) => typeof x === 'number');

/**
 * Replaces, in place, each array of PACK_MIN_LENGTH or more numbers inside `value` (objects and arrays walked) with a
 * Float64Array view of one new buffer, and returns that buffer (undefined when there was none). A top-level array of
 * numbers is left as it is: it has no parent to hold its view.
 */
export function packNumbers(value: unknown): ArrayBuffer | undefined {
  const found: { holder: Record<string | number, unknown>; key: string | number; list: number[] }[] = [];
  let total = 0;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      v.forEach((item, i) => (packable(item) ? note(v as unknown as Record<number, unknown>, i, item) : walk(item)));
    } else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      for (const key of Object.keys(o)) {
        const item = o[key];
        if (packable(item)) note(o, key, item);
        else walk(item);
      }
    }
  };
  const note = (holder: Record<string | number, unknown>, key: string | number, list: number[]) => {
    found.push({ holder, key, list });
    total += list.length;
  };
  walk(value);
  if (!found.length) return undefined;
  const buffer = new ArrayBuffer(total * 8);
  let at = 0;
  for (const { holder, key, list } of found) {
    const view = new Float64Array(buffer, at * 8, list.length);
    view.set(list);
    holder[key] = view;
    at += list.length;
  }
  return buffer;
}
