#!/usr/bin/env node
// Browser performance of the chat app, measured in Debian's Chromium against the real app (harness + built Next
// app + scripted engine), for a user who lives in the app: 1,000 chats, most filed in 20 folders, some pinned:
//   1. streaming a 2,000-token answer at ~200 tokens/s, with that sidebar (two folders open): main-thread long tasks
//      (PerformanceObserver 'longtask') during the stream — the longest, and how many exceed 50 ms;
//   2. a 1,000-message conversation seeded in the store: time to the first rendered message (full page load and
//      in-app navigation), DOM size of the virtualised transcript, then rAF frame times while scrolling it
//      top ↔ bottom for a few seconds (p50 / p95 / max, dropped frames).
// Prints a markdown table. Exits non-zero only on errors: the speed goals are benchmarks, not tests.
// Needs a Next build (`npm run build`; LAGOON_NEXT_DIST picks another folder) and Chromium (`npm run setup`).
import os from 'node:os';
import type { Page } from 'playwright-core';
import { type ConversationOps, userConversations } from '../lib/conversations/conversations.ts';
import { userFolders } from '../lib/conversations/folders.ts';
import { signUp } from '../lib/users/users.ts';
import { grantUsd } from '../lib/billing/ledger.ts';
import { toMicros } from '../lib/billing/money.ts';
import { launchBrowser } from '../e2e/support/browser.ts';
import { hasNextBuild, nextDistDir, scriptedModel, startHarness } from '../e2e/support/harness.ts';

const TOKENS = 2000;
const SLOW_MS = 5; // between chunks: ~200 tokens/s
const MESSAGES = 1000;
/** The history's size; BENCH_CHATS=0 measures the same stream with an empty sidebar, to compare. */
const CHATS = Number(process.env.BENCH_CHATS ?? 1000);
const FOLDERS = 20;
const SCROLL_SECONDS = Number(process.env.BENCH_SCROLL_SECONDS ?? 6);
const FRAME_MS = 1000 / 60;
const PASSWORD = 'correct horse battery staple';

if (!hasNextBuild()) {
  console.error(`bench:browser: no Next build in ${nextDistDir()}: run \`npm run build\` first`);
  process.exit(1);
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
};
const step = (what: string) => process.stderr.write(`bench:browser: ${what}\n`);
const ms = (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`;

/** Starts collecting long tasks (buffered: tasks from before the call are kept too) into window.__longTasks. */
const observeLongTasks = (page: Page) =>
  page.evaluate(() => {
    const w = window as unknown as { __longTasks: { start: number; duration: number }[] };
    w.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
    // Long animation frames say what a long task was made of: which scripts (by invoker) and how much style and layout.
    const f = window as unknown as { __longFrames: unknown[] };
    f.__longFrames = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as unknown as LongFrame[]) {
        f.__longFrames.push({
          start: e.startTime,
          duration: e.duration,
          layout: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0,
          scripts: e.scripts.map((s) => ({
            invoker: s.invoker,
            duration: s.duration,
            source: `${s.sourceURL.split('/').pop()}:${s.sourceCharPosition}`,
            layout: s.forcedStyleAndLayoutDuration,
          })),
        });
      }
    }).observe({ type: 'long-animation-frame', buffered: true });
  });

interface LongFrame {
  startTime: number;
  duration: number;
  styleAndLayoutStart: number;
  scripts: { invoker: string; duration: number; sourceURL: string; sourceCharPosition: number; forcedStyleAndLayoutDuration: number }[];
}
interface FrameSummary {
  start: number;
  duration: number;
  layout: number;
  scripts: { invoker: string; duration: number; source: string; layout: number }[];
}

/** The longest animation frames between two times, each as "duration: layout, then its scripts by time". */
const longFramesBetween = (page: Page, from: number, to: number) =>
  page
    .evaluate(([a, b]) => (window as unknown as { __longFrames: FrameSummary[] }).__longFrames.filter((t) => t.start >= a && t.start <= b), [from, to])
    .then((frames) =>
      frames
        .sort((x, y) => y.duration - x.duration)
        .slice(0, 3)
        .map(
          (f) =>
            `${ms(f.duration)} (style and layout ${ms(f.layout)}; ${f.scripts
              .sort((x, y) => y.duration - x.duration)
              .slice(0, 3)
              .map((s) => `${s.invoker} ${ms(s.duration)}${s.layout > 1 ? `, forced layout ${ms(s.layout)}` : ''} at ${s.source}`)
              .join('; ')})`,
        ),
    );

const longTasksBetween = (page: Page, from: number, to: number) =>
  page.evaluate(
    ([a, b]) =>
      (window as unknown as { __longTasks: { start: number; duration: number }[] }).__longTasks
        .filter((t) => t.start >= a && t.start <= b)
        .map((t) => t.duration),
    [from, to],
  );

/** A plausible transcript: questions, and answers of mixed length with some markdown. */
function seedText(i: number): string {
  if (i % 2 === 0) return `Question ${i / 2 + 1}: how does step ${i} of the plan work, and what could go wrong?`;
  const para = `Answer ${(i + 1) / 2}. The step is simple in principle: prepare, check, then commit. `.repeat(1 + (i % 5));
  return i % 7 === 1 ? `${para}\n\n- first point\n- second point\n\n\`\`\`ts\nconst step = ${i};\n\`\`\`` : para;
}

/**
 * The user's history: CHATS chats of a question and an answer each, four in five filed in FOLDERS folders, one in 25
 * pinned (so every sidebar list has more than a page), seeded directly in the store.
 */
async function seedHistory(chats: ConversationOps, folders: ReturnType<typeof userFolders>): Promise<{ folders: string[]; pinned: number }> {
  const ids: string[] = [];
  for (let f = 0; f < FOLDERS; f++) ids.push((await folders.create(`Project ${f + 1}`)).id);
  let pinned = 0;
  for (let i = 0; i < CHATS; i++) {
    const c = await chats.create({ modelId: 'bench-model', title: `Chat ${i + 1}: the plan, step ${i % 37}` });
    const q = await chats.addMessage(c.id, { parentId: null, role: 'user', content: seedText(2 * (i % 50)) });
    await chats.addMessage(c.id, { parentId: q.id, role: 'assistant', content: seedText(2 * (i % 50) + 1), modelId: 'bench-model' });
    const folderId = i % 5 === 4 ? null : ids[i % FOLDERS];
    const pin = i % 25 === 0;
    if (pin) pinned++;
    if (folderId || pin) await chats.organise(c.id, { ...(folderId ? { folderId } : {}), ...(pin ? { pinned: true } : {}) });
  }
  return { folders: ids, pinned };
}

const h = await startHarness({
  app: { next: true },
  models: (url) => [scriptedModel('bench-model', url, { name: 'Bench model', max_completion_tokens: 8192 })],
});
const browser = await launchBrowser();
const version = browser.version();
const rows: [string, string][] = [];
try {
  const { user } = await signUp(h.svc.store, { email: 'bench@example.test', password: PASSWORD });
  await grantUsd(h.svc.store, user.accountId, toMicros(100));
  const chats = userConversations(h.svc.store, user.id);
  const context = await browser.newContext({ baseURL: h.origin, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const signIn = await page.request.post(`${h.origin}/api/app/auth/sign-in`, {
    data: { email: 'bench@example.test', password: PASSWORD },
    headers: { origin: h.origin },
  });
  if (!signIn.ok()) throw new Error(`sign-in failed: ${signIn.status()} ${await signIn.text()}`);

  step(`seeding ${CHATS} chats in ${FOLDERS} folders`);
  const history = await seedHistory(chats, userFolders(h.svc.store, user.id));
  rows.push(['History in the sidebar', `${CHATS.toLocaleString('en-US')} chats: ${FOLDERS} folders, ${history.pinned} pinned`]);

  // 1. Streaming.
  step(`streaming ${TOKENS} tokens`);
  const streamChat = await chats.create({ modelId: 'bench-model' });
  await page.goto(`/c/${streamChat.id}`);
  await page.getByTestId('composer-input').waitFor();
  if (CHATS) await page.locator('[data-testid="conversation-item"]').first().waitFor();
  // Two folders open, as a user working in them would have them.
  for (const id of CHATS ? history.folders.slice(0, 2) : []) {
    const folder = page.locator(`[data-testid="folder"][data-id="${id}"]`);
    await folder.getByTestId('folder-toggle').click();
    await folder.locator('[data-testid="conversation-item"]').first().waitFor();
  }
  const sidebarRows = await page.locator('[data-testid="conversation-item"]').count();
  rows.push(['Sidebar rows mounted while streaming', String(sidebarRows)]);
  await observeLongTasks(page);
  const t0 = await page.evaluate(() => performance.now());
  await page.getByTestId('composer-input').fill(`Stream please [[tokens:${TOKENS}]] [[slow:${SLOW_MS}]]`);
  await page.getByTestId('composer-input').press('Enter');
  const answer = page.locator('[data-testid="message"][data-role="assistant"]').last();
  await answer.and(page.locator('[data-status="streaming"]')).waitFor({ timeout: 15_000 });
  const tFirst = await page.evaluate(() => performance.now());
  // Polled every 250 ms by one querySelector: a locator's wait re-runs its selector engine over the whole page on
  // every animation frame, main-thread work of the benchmark's own that grows with the sidebar.
  await page.waitForFunction(
    () => [...document.querySelectorAll('[data-testid="message"][data-role="assistant"]')].at(-1)?.getAttribute('data-status') === 'complete',
    null,
    { polling: 250, timeout: 120_000 },
  );
  // The last tokens' render may land a frame or two after the status turns complete (the markdown is deferred):
  // the measured window ends once the whole answer is on screen.
  const wordsOf = async () => (await answer.locator('.markdown').innerText()).trim().split(/\s+/).length;
  let words = await wordsOf();
  for (let i = 0; i < 40 && words !== TOKENS; i++) {
    await new Promise((r) => setTimeout(r, 250));
    words = await wordsOf();
  }
  const t1 = await page.evaluate(() => performance.now());
  if (words !== TOKENS) throw new Error(`the answer has ${words} words, expected ${TOKENS}`);
  const tasks = await longTasksBetween(page, t0, t1);
  rows.push([
    'Streaming: answer',
    `${TOKENS.toLocaleString('en-US')} tokens in ${((t1 - tFirst) / 1000).toFixed(1)} s (${Math.round(TOKENS / ((t1 - tFirst) / 1000))} tokens/s)`,
  ]);
  rows.push(['Streaming: longest main-thread task', tasks.length ? ms(Math.max(...tasks)) : 'none ≥ 50 ms']);
  rows.push(['Streaming: tasks over 50 ms', String(tasks.filter((d) => d > 50).length)]);
  const frames = await longFramesBetween(page, t0, t1);
  rows.push(['Streaming: longest animation frames (what they held)', frames.join('<br>') || 'none ≥ 50 ms']);

  // 2. A 1,000-message conversation, seeded directly in the store.
  step(`seeding ${MESSAGES} messages`);
  const long = await chats.create({ modelId: 'bench-model', title: 'A thousand messages' });
  let parent: string | null = null;
  for (let i = 0; i < MESSAGES; i++) {
    const m = await chats.addMessage(long.id, {
      parentId: parent,
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: seedText(i),
      modelId: i % 2 ? 'bench-model' : null,
    });
    parent = m.id;
  }
  // The time from navigation start until the first message element exists, recorded in the page itself.
  await context.addInitScript(() => {
    const w = window as unknown as { __firstMessageAt?: number };
    new MutationObserver((_, obs) => {
      if (document.querySelector('[data-testid="message"]')) {
        w.__firstMessageAt = performance.now();
        obs.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  step('opening the long chat');
  await page.goto(`/c/${long.id}`);
  const loadMs = await page
    .waitForFunction(() => (window as unknown as { __firstMessageAt?: number }).__firstMessageAt)
    .then((v) => v.jsonValue() as Promise<number>);
  const transcript = page.getByRole('region', { name: 'Conversation' });
  await transcript.waitFor();
  step('opening it again from the sidebar');
  // In-app: from another chat, click this one in the sidebar.
  await page.goto(`/c/${streamChat.id}`);
  await page.locator('[data-testid="message"][data-status="complete"]').first().waitFor();
  const navMs = await page.evaluate(async (id) => {
    const link = document.querySelector<HTMLAnchorElement>(`[data-testid="conversation-item"][data-id="${id}"] a`);
    if (!link) throw new Error('the long chat is not in the sidebar');
    const start = performance.now();
    link.click();
    return new Promise<number>((resolve, reject) => {
      const check = () => {
        // A seeded message on screen (the other chat's are "Stream please…" and "w1 w2…").
        const shown = [...document.querySelectorAll('[data-testid="message"]')].some((m) => /^(Question|Answer) \d+/.test(m.textContent?.trim() ?? ''));
        if (location.pathname.endsWith(id) && shown) resolve(performance.now() - start);
        else if (performance.now() - start > 30_000) reject(new Error('the long chat did not render within 30 s'));
        else requestAnimationFrame(check);
      };
      check();
    });
  }, long.id);
  // Two frames for the virtualiser to measure the rows in view before counting them.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const dom = await transcript.evaluate((el) => ({ nodes: el.querySelectorAll('*').length, messages: el.querySelectorAll('[data-testid="message"]').length }));
  rows.push([`${MESSAGES.toLocaleString('en-US')}-message chat: first message rendered (page load)`, ms(loadMs)]);
  rows.push([`${MESSAGES.toLocaleString('en-US')}-message chat: first message rendered (in-app navigation)`, ms(navMs)]);
  rows.push(['Transcript DOM (virtualised)', `${dom.nodes.toLocaleString('en-US')} nodes, ${dom.messages} of ${MESSAGES} messages mounted`]);

  step(`scrolling for ${SCROLL_SECONDS} s`);
  // Scrolling: each frame moves the transcript by a fixed step, so one sweep top ↔ bottom takes about 1.5 s.
  await observeLongTasks(page);
  const scroll = await transcript.evaluate(async (el, seconds) => {
    const frames: number[] = [];
    const start = performance.now();
    let dir = -1;
    let last = start;
    return new Promise<{ frames: number[]; step: number; start: number; end: number; sweeps: number }>((resolve) => {
      const step = Math.max(40, Math.round(el.scrollHeight / 90));
      let sweeps = 0;
      const tick = (now: number) => {
        frames.push(now - last);
        last = now;
        const max = el.scrollHeight - el.clientHeight;
        el.scrollTop = Math.min(max, Math.max(0, el.scrollTop + dir * step));
        if ((dir < 0 && el.scrollTop <= 0) || (dir > 0 && el.scrollTop >= max - 1)) {
          dir = -dir;
          sweeps++;
        }
        if (now - start < seconds * 1000) requestAnimationFrame(tick);
        else resolve({ frames: frames.slice(1), step, start, end: now, sweeps });
      };
      requestAnimationFrame((now) => {
        last = now;
        requestAnimationFrame(tick);
      });
    });
  }, SCROLL_SECONDS);
  const scrollTasks = await longTasksBetween(page, scroll.start, scroll.end);
  const dropped = scroll.frames.reduce((n, f) => n + (f > FRAME_MS * 1.5 ? Math.round(f / FRAME_MS) - 1 : 0), 0);
  rows.push([
    'Scroll: frame time p50 / p95 / max',
    `${ms(quantile(scroll.frames, 0.5))} / ${ms(quantile(scroll.frames, 0.95))} / ${ms(Math.max(...scroll.frames))}`,
  ]);
  rows.push(['Scroll: dropped frames (at 60 Hz)', `${dropped} over ${scroll.frames.length} frames, ${scroll.sweeps} sweeps at ${scroll.step} px/frame`]);
  rows.push(['Scroll: tasks over 50 ms', String(scrollTasks.filter((d) => d > 50).length)]);
} finally {
  await browser.close();
  await h.close();
}

console.log(`\nBrowser benchmark (Chromium ${version}, ${os.cpus().length} CPU cores, ${os.cpus()[0]?.model.trim() ?? 'unknown CPU'})\n`);
console.log('| Measure | Result |');
console.log('|---|---|');
for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
