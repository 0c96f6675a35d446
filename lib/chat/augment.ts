// Web augmentation of a chat request: scraping the URLs of the latest user message, or searching the web for it,
// and putting what was found into the model's context as numbered sources. Planned before credit is reserved (so
// the hold covers the fees and the larger prompt), run after (so a refused request never costs a provider call).
import { needsSearch } from '../augment/auto.ts';
import { sourcesBlock } from '../augment/citations.ts';
import { findUrls, scrapeAll } from '../augment/scrape.ts';
import type { ScrapedPage, SearchProvider, SearchResult } from '../augment/types.ts';
import type { EngineMessage } from '../engines/text/types.ts';
import type { EffectiveParams } from './params.ts';
import { log } from '../log.ts';

/** Results a search puts into the context, and the allowance the credit hold makes for them. */
export const SEARCH_RESULTS = 5;
const SEARCH_TOKENS_ALLOWANCE = SEARCH_RESULTS * 300 + 200;
/** A scraped page is capped at 20,000 characters: at about three bytes a token, this many tokens at most. */
const PAGE_TOKENS_ALLOWANCE = 7_000;
const CITATION_SNIPPET_CHARS = 500;

export interface AugmentPlan {
  /** URLs to scrape (scraping bypasses search when the message has any). */
  urls: string[];
  search: boolean;
  /** The query: the latest user message's text. */
  text: string;
  /** Extra prompt tokens and fee units the credit hold must cover. */
  allowanceTokens: number;
}

export interface Augmentation {
  citations: SearchResult[];
  /** Billed: a search that answered, and each URL scraped successfully. */
  searches: number;
  scrapedUrls: number;
}

function latestUserText(messages: EngineMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    return (m.content ?? [])
      .filter((p) => p.type === 'text')
      .map((p) => String(p.text))
      .join('\n');
  }
  return '';
}

export function planAugmentation(params: EffectiveParams, messages: EngineMessage[], searchAvailable: boolean): AugmentPlan {
  const text = latestUserText(messages);
  const none = { urls: [], search: false, text, allowanceTokens: 0 };
  if (params.enable_x_search) return none; // the model's own provider searches
  if (params.enable_web_scraping) {
    const urls = findUrls(text, 5);
    if (urls.length) return { urls, search: false, text, allowanceTokens: urls.length * PAGE_TOKENS_ALLOWANCE };
  }
  const mode = params.enable_web_search;
  const search = searchAvailable && (mode === 'on' || (mode === 'auto' && needsSearch(text)));
  return search ? { urls: [], search: true, text, allowanceTokens: SEARCH_TOKENS_ALLOWANCE } : none;
}

/** The most the plan can cost in fees (micro-units), for the hold. */
export const planFees = (plan: AugmentPlan, prices: { search: number; scrapedUrl: number }) =>
  (plan.search ? prices.search : 0) + plan.urls.length * prices.scrapedUrl;

const pageCitation = (p: ScrapedPage): SearchResult => ({ title: p.title || p.url, url: p.url, content: p.content.slice(0, CITATION_SNIPPET_CHARS) });

/** Adds text to the leading system message (one system message is what every chat template accepts). */
function withContext(messages: EngineMessage[], text: string): EngineMessage[] {
  if (messages[0]?.role === 'system') return [{ ...messages[0], content: `${messages[0].content}\n\n${text}` }, ...messages.slice(1)];
  return [{ role: 'system', content: text }, ...messages];
}

/** What running a plan found: the billed work, and the sources to put into the context (none: the prompt stays). */
export interface FetchedAugmentation {
  result: Augmentation;
  sources: SearchResult[];
}

/**
 * Runs the plan's provider calls. A failing provider or page never fails the request: the answer comes without those
 * sources, and nothing that failed is billed. Separate from applying them, so a model fallback reuses what was found.
 */
export async function fetchAugmentation(
  plan: AugmentPlan,
  opts: { provider?: SearchProvider; signal: AbortSignal; allowHosts?: string[] },
): Promise<FetchedAugmentation> {
  const result: Augmentation = { citations: [], searches: 0, scrapedUrls: 0 };
  if (plan.urls.length) {
    const { pages, failed } = await scrapeAll(plan.urls, { signal: opts.signal, allowHosts: opts.allowHosts });
    for (const f of failed) log.warn(`scraping ${f.url} failed: ${f.reason}`);
    result.scrapedUrls = pages.length;
    result.citations = pages.map(pageCitation);
    return { result, sources: pages.map((p) => ({ title: p.title || p.url, url: p.url, content: p.content })) };
  }
  if (plan.search && opts.provider) {
    let found: SearchResult[];
    try {
      found = await opts.provider.search(plan.text.slice(0, 400), { count: SEARCH_RESULTS, signal: opts.signal });
    } catch (e) {
      log.warn(`web search (${opts.provider.name}) failed; answering without it: ${(e as Error).message}`);
      return { result, sources: [] };
    }
    result.searches = 1;
    result.citations = found;
    return { result, sources: found };
  }
  return { result, sources: [] };
}

/** The messages with the sources found added to the leading system message. */
export function applyAugmentation(messages: EngineMessage[], fetched: FetchedAugmentation, citations: boolean): EngineMessage[] {
  return fetched.sources.length ? withContext(messages, sourcesBlock(fetched.sources, { citations })) : messages;
}

/** Runs the plan and applies what it found. */
export async function runAugmentation(
  plan: AugmentPlan,
  messages: EngineMessage[],
  opts: { provider?: SearchProvider; citations: boolean; signal: AbortSignal; allowHosts?: string[] },
): Promise<{ messages: EngineMessage[]; result: Augmentation }> {
  const fetched = await fetchAugmentation(plan, opts);
  return { messages: applyAugmentation(messages, fetched, opts.citations), result: fetched.result };
}
