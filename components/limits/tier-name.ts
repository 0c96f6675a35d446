// The rate-limit tier in the words every page uses ("Standard" or "Partner"), never the stored "default".
export const tierName = (tier: string): string => (tier === 'partner' ? 'Partner' : 'Standard');
