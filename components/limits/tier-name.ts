// The rate-limit tier in the words every page uses ("Standard" or "Partner"), never the stored "default".
export const tierName = (tier: string): string => (tier === 'partner' ? 'Partner' : 'Standard');

/** The tier's name in the catalogue (`tiers.*`), for the pages that show it in the reader's language. */
export const tierKey = (tier: string): 'partner' | 'standard' => (tier === 'partner' ? 'partner' : 'standard');
