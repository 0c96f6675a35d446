// The account pages are one Account area: its single entry in the account menu at the foot of the sidebar (the chat
// history comes first), then the area's tabs.
import type { Page } from 'playwright-core';

/** Opens the account menu, follows Account, then one of the area's tabs (usage-link, billing-link, keys-link,
 * limits-link, operator-link; account-link stops at the account page). */
export async function openAccountLink(page: Page, testId: string): Promise<void> {
  await page.getByTestId('user-menu').click();
  await page.getByTestId('account-link').click();
  if (testId === 'account-link') return;
  await page.getByTestId('account-tabs').getByTestId(testId).click();
}
