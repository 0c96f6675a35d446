// The account pages are reached through the account menu at the foot of the sidebar (the chat history comes first).
import type { Page } from 'playwright-core';

/** Opens the account menu and follows one of its links (usage-link, billing-link, keys-link, limits-link, operator-link). */
export async function openAccountLink(page: Page, testId: string): Promise<void> {
  await page.getByTestId('user-menu').click();
  await page.getByTestId(testId).click();
}
