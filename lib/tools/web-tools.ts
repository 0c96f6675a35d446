// The built-in web tools, in the same Tool shape as an MCP server's: web search (this server's search providers) and
// page fetch (the safe fetch, so the SSRF rules hold), each call billed as its own metered call at the price
// /augment/search and /augment/scrape charge, to the user's own account, and only when it succeeded.
import type { SearchProvider } from '../augment/types.ts';
import { scrapeUrl } from '../augment/scrape.ts';
import { type MeterDeps, metered } from '../billing/metered.ts';
import { perCallPrices } from '../billing/pricing.ts';
import { newRequestId } from '../http/request-id.ts';
import { principalForUser, type User } from '../users/users.ts';
import { capText, type Tool, type ToolResult } from './tool.ts';

export const WEB_TOOLS_ID = 'builtin:web';
export const WEB_TOOLS_NAME = 'Web search and page fetch';

export interface WebToolsDeps {
  meter: MeterDeps;
  user: User;
  /** The configured search providers (none: only page fetch is offered). */
  searchProviders: readonly SearchProvider[];
  prices: { search: number; scrapedUrl: number };
  allowHosts: string[];
  maxResultChars: number;
}

const SEARCH_RESULTS = 5;

export function webTools(d: WebToolsDeps): Tool[] {
  /** One billed call: a usage row of its own, charged only when `work` succeeds. */
  async function billed<T>(
    price: number,
    usage: { modelId: string; endpoint: string; searches?: number; scrapedUrls?: number },
    work: () => Promise<T>,
  ): Promise<T> {
    const used = { calls: 1, searches: usage.searches, scrapedUrls: usage.scrapedUrls };
    const principal = await principalForUser(d.meter.store, d.user);
    const call = { modelId: usage.modelId, endpoint: usage.endpoint, prices: perCallPrices(price), unit: 'call' as const, estimate: used };
    return metered(d.meter, { principal, requestId: newRequestId(), responseHeaders: {} }, call, async (meter) => {
      const value = await work();
      meter.settle(used);
      return value;
    });
  }
  const result = (text: string): ToolResult => {
    const c = capText(text, d.maxResultChars);
    return { text: c.text, isError: false, truncated: c.truncated };
  };

  const tools: Tool[] = [];
  const provider = d.searchProviders[0];
  if (provider) {
    tools.push({
      name: 'web_search',
      description: 'Searches the web; returns the top results with their titles, URLs and snippets.',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string', description: 'What to search for' } },
        required: ['query'],
        additionalProperties: false,
      },
      server: null,
      async run(args, ctx) {
        const query = typeof args.query === 'string' ? args.query.trim().slice(0, 400) : '';
        if (!query) return { text: 'Not searched: give the query as a string in "query".', isError: true, truncated: false };
        const found = await billed(d.prices.search, { modelId: `augment:search:${provider.name}`, endpoint: 'app:tool:web_search', searches: 1 }, () =>
          provider.search(query, { count: SEARCH_RESULTS, signal: ctx.signal }),
        );
        if (!found.length) return result('No results.');
        return result(found.map((r, i) => `[${i + 1}] ${r.title}\n${r.url}\n${r.content}`).join('\n\n'));
      },
    });
  }
  tools.push({
    name: 'fetch_page',
    description: 'Fetches a public web page (http or https) and returns its main text as Markdown.',
    parameters: { type: 'object', properties: { url: { type: 'string', description: 'The page’s URL' } }, required: ['url'], additionalProperties: false },
    server: null,
    async run(args, ctx) {
      const url = typeof args.url === 'string' ? args.url.trim() : '';
      if (!/^https?:\/\//i.test(url) || url.length > 2048) return { text: 'Not fetched: give an http(s) URL in "url".', isError: true, truncated: false };
      const page = await billed(d.prices.scrapedUrl, { modelId: 'augment:scrape', endpoint: 'app:tool:fetch_page', scrapedUrls: 1 }, () =>
        scrapeUrl(url, { signal: ctx.signal, allowHosts: d.allowHosts, format: 'markdown' }),
      );
      return result(`# ${page.title}\n${page.url}\n\n${page.content}`);
    },
  });
  return tools;
}
