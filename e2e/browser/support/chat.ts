// Driving the chat view as a user does: type and press Enter, pick a model from the listbox, read the answers
// (data-testid list at the top of components/chat/chat-view.tsx).
import type { Locator, Page } from 'playwright-core';
import { textOf, until, waitForAttribute } from './wait.ts';

export const messages = (page: Page, role: 'user' | 'assistant'): Locator => page.locator(`[data-testid="message"][data-role="${role}"]`);
export const lastAnswer = (page: Page): Locator => messages(page, 'assistant').last();
export const lastQuestion = (page: Page): Locator => messages(page, 'user').last();

/** The answer's markdown body only (not its footer or sources), as a reader sees it. */
export const answerBody = (answer: Locator): Locator => answer.locator('.markdown').first();

/** Types into the composer and sends with Enter. */
export async function send(page: Page, text: string): Promise<void> {
  const input = page.getByTestId('composer-input');
  await input.fill(text);
  await input.press('Enter');
}

/** Sends `text` and waits for a new answer to end with `status`; returns the answer's body text. */
export async function ask(page: Page, text: string, status = 'complete', timeoutMs = 20_000): Promise<string> {
  const before = await messages(page, 'assistant').count();
  await send(page, text);
  await until(async () => (await messages(page, 'assistant').count()) > before, 'a new answer in the transcript');
  const answer = lastAnswer(page);
  await waitForAttribute(answer, 'data-status', status, timeoutMs);
  // The status attribute and the rendered markdown land in separate commits: a complete answer's text may show a
  // moment after its status does (a complete answer with no text stays '' after the wait).
  const body = answerBody(answer);
  const read = async () => ((await body.count()) ? textOf(body) : '');
  if (status !== 'complete') return read();
  return until(read, 'the complete answer’s text', 5_000).catch(read);
}

/** Opens the model picker and picks the model whose option shows `name`. */
export async function pickModel(page: Page, name: string): Promise<void> {
  await page.getByTestId('model-picker').click();
  await page.getByRole('option').filter({ hasText: name }).first().click();
  await until(async () => ((await page.getByTestId('model-picker').getAttribute('aria-label')) ?? '').includes(name), `model ${name} picked`);
}

/** The path of a conversation page, once the first send has moved there. */
export async function conversationId(page: Page): Promise<string> {
  const url = await until(() => /\/c\/([^/?#]+)/.exec(new URL(page.url()).pathname)?.[1], 'the page to move to /c/<id>');
  return decodeURIComponent(url);
}

/** Waits until the code blocks on the page are syntax-highlighted (the highlighter loads lazily). */
export async function waitForHighlighting(page: Page): Promise<void> {
  await until(
    () => page.evaluate(() => !!document.querySelector('pre span[style*="--sdm-c"]:not([style*="--sdm-c: inherit"])')),
    'highlighted code (coloured tokens) in the answer',
  );
}
