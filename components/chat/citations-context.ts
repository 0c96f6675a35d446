// The sources of the answer being rendered, for the citation links inside its markdown. A context rather than a
// plugin option so new citations re-render only the superscripts, not every parsed block.
import { createContext } from 'react';
import type { AppCitation } from '@/lib/wire.ts';

export const CitationsContext = createContext<readonly AppCitation[]>([]);

/** Only web links become citation links; anything else in a stored source is shown as a plain number. */
export const isWebUrl = (url: string): boolean => /^https?:\/\//i.test(url);
