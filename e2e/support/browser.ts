// Browser tests drive Debian's Chromium through playwright-core (never a downloaded browser). Every response the
// page receives is recorded, so a test can prove no credential ever reached the browser.
import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.LAGOON_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export const SCREENSHOT_DIR = path.resolve('test-results/screenshots');

/** Debian's Chromium with the project's flags, plus `extraArgs` (e.g. a fake microphone). */
export function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: [...ARGS, ...extraArgs], headless: true });
}

/** Chromium with a real (not incognito) profile in `dir`: what installing a web app needs (Chromium refuses to
 * install from an incognito context, which every browser.newContext() is). */
export function launchProfile(dir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, args: ARGS, headless: true });
}

/** What the browser received: each response's URL, headers and (for text bodies) body. */
export interface Received {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface RecordingContext {
  context: BrowserContext;
  received: Received[];
  /** Waits for the bodies still being read. */
  settle(): Promise<void>;
  /** Every Content-Security-Policy violation any page of the context reported (the app must cause none). */
  cspViolations: string[];
}

const TEXT = /json|text|javascript|event-stream|xml|svg|css|html/i;

/** A context that records every response (and every SSE body, once complete) the pages in it receive. */
export async function recordingContext(
  browser: Browser,
  opts: { baseURL: string; viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark'; deviceScaleFactor?: number },
): Promise<RecordingContext> {
  const context = await browser.newContext({
    baseURL: opts.baseURL,
    viewport: opts.viewport ?? { width: 1280, height: 800 },
    colorScheme: opts.colorScheme ?? 'light',
    deviceScaleFactor: opts.deviceScaleFactor ?? 1,
  });
  const received: Received[] = [];
  const pending = new Set<Promise<void>>();
  const cspViolations = await recordCspViolations(context);
  context.on('response', (res) => {
    const headers = res.headers();
    const entry: Received = { url: res.url(), headers, body: '' };
    received.push(entry);
    if (!TEXT.test(headers['content-type'] ?? '')) return;
    const p = res
      .text()
      .then((t) => {
        entry.body = t;
      })
      .catch(() => {}) // a body the page abandoned (a stopped stream) has nothing more to show
      .finally(() => pending.delete(p));
    pending.add(p);
  });
  return {
    context,
    received,
    async settle() {
      await Promise.race([Promise.all([...pending]), new Promise((r) => setTimeout(r, 3000))]);
    },
    cspViolations,
  };
}

/**
 * Collects the context's CSP violations: each page's securitypolicyviolation events (listened to before any of its
 * scripts run) and Chromium's console reports of them (which also come from workers).
 */
async function recordCspViolations(context: BrowserContext): Promise<string[]> {
  const seen: string[] = [];
  await context.exposeBinding('__lagoonCspViolation', ({ page }, what: string) => {
    seen.push(`${what} on ${page?.url() ?? '?'}`);
  });
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const report = (window as unknown as { __lagoonCspViolation(s: string): void }).__lagoonCspViolation;
      report(`${e.effectiveDirective} blocked ${e.blockedURI || 'an inline item'} (${e.sourceFile}:${e.lineNumber}) ${e.sample}`);
    });
  });
  context.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) seen.push(`console ${msg.type()}: ${msg.text()}`);
  });
  context.on('weberror', (err) => {
    if (/Content Security Policy/i.test(String(err.error()))) seen.push(`page error: ${err.error()}`);
  });
  return seen;
}

/** The secrets (non-empty strings) found anywhere in what the browser received, with where. */
export function findSecrets(received: Received[], secrets: string[]): string[] {
  const hits: string[] = [];
  const wanted = secrets.filter((s) => s && s.length >= 8);
  for (const r of received) {
    const hay = `${JSON.stringify(r.headers)}\n${r.body}`;
    for (const s of wanted) if (hay.includes(s)) hits.push(`${s.slice(0, 12)}… in ${r.url}`);
    if (/lgn_(inf|adm)_[A-Za-z0-9]{40}/.test(hay)) hits.push(`an API key in ${r.url}`);
  }
  return hits;
}

/** Every file of the built client bundles (what any browser can download). */
export function clientBundleFiles(distDir = process.env.LAGOON_NEXT_DIST || '.next'): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  const staticDir = path.join(distDir, 'static');
  if (fs.existsSync(staticDir)) walk(staticDir);
  return out;
}

/** axe violations of impact serious or critical on the page as it is now. */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    );
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}
