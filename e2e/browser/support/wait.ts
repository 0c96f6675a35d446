// Waiting on conditions, never on the clock: every check polls until it holds or its deadline passes, and a
// failure says what was expected and what was last seen.
import type { Locator } from 'playwright-core';

const POLL_MS = 50;

/** Polls `probe` until it returns something truthy (returned), or fails after `timeoutMs` naming `what`. */
export async function until<T>(probe: () => T | Promise<T>, what: string | (() => string), timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`,
      );
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** The element's visible text (innerText: what a reader sees, without hidden or sr-only-free markup). */
export const textOf = (loc: Locator): Promise<string> => loc.innerText({ timeout: 2_000 });

/** Waits until the element's text matches and returns it. */
export async function waitForText(loc: Locator, pattern: RegExp | string, timeoutMs = 15_000): Promise<string> {
  let seen = '';
  await until(
    async () => {
      seen = await textOf(loc);
      return typeof pattern === 'string' ? seen.includes(pattern) : pattern.test(seen);
    },
    () => `text ${String(pattern)} in ${loc} (saw ${JSON.stringify(seen.slice(0, 300))})`,
    timeoutMs,
  );
  return seen;
}

/** Waits until the attribute has the value. */
export async function waitForAttribute(loc: Locator, name: string, value: string | RegExp, timeoutMs = 15_000): Promise<void> {
  await until(
    async () => {
      const v = (await loc.getAttribute(name, { timeout: 2_000 })) ?? '';
      return typeof value === 'string' ? v === value : value.test(v);
    },
    `${name}=${String(value)} on ${loc}`,
    timeoutMs,
  );
}

/** Waits until the locator matches exactly `n` elements. */
export async function waitForCount(loc: Locator, n: number, timeoutMs = 15_000): Promise<void> {
  await until(async () => (await loc.count()) === n, `${n} of ${loc}`, timeoutMs);
}
