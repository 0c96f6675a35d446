// One browser test file's world: the harness serving the built Next app (scripted engine upstream), one Chromium,
// and recording contexts whose every response is kept for the key-material scan at the end of the file.
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { accountKeys } from '../../../lib/auth/keys.ts';
import { grantUsd } from '../../../lib/billing/ledger.ts';
import { toMicros } from '../../../lib/billing/money.ts';
import { signUp, type User } from '../../../lib/users/users.ts';
import { CHROMIUM, launchBrowser, type RecordingContext, recordingContext } from '../../support/browser.ts';
import { type Harness, type HarnessOptions, hasNextBuild, nextDistDir, startHarness } from '../../support/harness.ts';

/** Why the browser tests cannot run here (reported as one skipped test), or false. */
export function browserSkip(): string | false {
  if (!hasNextBuild()) return `no Next build in ${nextDistDir()}: run \`npm run build\` first (npm test does)`;
  if (!fs.existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM}: run \`npm run setup\` (or set LAGOON_CHROMIUM)`;
  return false;
}

export const PASSWORD = 'correct horse battery staple';

export interface TestUser {
  user: User;
  email: string;
  /** A personal API key this user also holds: it must never reach the browser. */
  apiKey: string;
}

export interface ContextOptions {
  viewport?: { width: number; height: number };
  colorScheme?: 'light' | 'dark';
  isMobile?: boolean;
  /** Device pixels per CSS pixel (2: a high-density screen). */
  deviceScaleFactor?: number;
}

export interface AppRun {
  h: Harness;
  browser: Browser;
  /** Every context opened so far (their recordings feed the key scan). */
  contexts: RecordingContext[];
  /** Secrets created during the run that are not in the database (API key secrets are stored only as hashes). */
  secrets: string[];
  newPage(opts?: ContextOptions): Promise<{ page: Page; rec: RecordingContext }>;
  /** A user made directly in the store (no starting credit unless `usd`), plus a personal API key. */
  newUser(opts?: { usd?: number; displayName?: string }): Promise<TestUser>;
  /** Signs the page's context in through the app API (the UI sign-in has its own test) and opens `path`. */
  signIn(page: Page, email: string, path?: string): Promise<void>;
  close(): Promise<void>;
}

let seq = 0;

/** `browserArgs`: what the browser needs from the running server (e.g. a fake microphone's file made through it). */
export async function startApp(opts: HarnessOptions = {}, browserArgs?: (h: Harness) => Promise<string[]>): Promise<AppRun> {
  const h = await startHarness({ ...opts, app: { next: true } });
  let browser: Browser;
  try {
    browser = await launchBrowser(browserArgs ? await browserArgs(h) : []);
  } catch (e) {
    await h.close();
    throw e;
  }
  const contexts: RecordingContext[] = [];
  const secrets: string[] = [];
  return {
    h,
    browser,
    contexts,
    secrets,
    async newPage(o = {}) {
      const rec = await recordingContext(browser, {
        baseURL: h.origin,
        viewport: o.viewport,
        colorScheme: o.colorScheme,
        deviceScaleFactor: o.deviceScaleFactor,
      });
      contexts.push(rec);
      rec.context.setDefaultTimeout(15_000);
      return { page: await rec.context.newPage(), rec };
    },
    async newUser(o = {}) {
      const email = `user${++seq}-${process.pid}@example.test`;
      const { user } = await signUp(h.svc.store, { email, password: PASSWORD, displayName: o.displayName });
      if (o.usd) await grantUsd(h.svc.store, user.accountId, toMicros(o.usd));
      const { secret } = await accountKeys(h.svc.store, user.accountId).create({ type: 'INFERENCE', description: 'personal key' });
      secrets.push(secret);
      return { user, email, apiKey: secret };
    },
    async signIn(page, email, path = '/') {
      const res = await page.request.post(`${h.origin}/api/app/auth/sign-in`, { data: { email, password: PASSWORD }, headers: { origin: h.origin } });
      const body = await res.text();
      if (res.status() !== 200) throw new Error(`sign-in failed: ${res.status()} ${body}`);
      // Not a page response, so the recorder does not see it: add it to the scan by hand.
      contexts.find((c) => c.context === page.context())?.received.push({ url: res.url(), headers: res.headers(), body });
      await page.goto(path);
    },
    async close() {
      await browser.close().catch(() => {});
      await h.close();
    },
  };
}
