// POST /augment/search, /augment/scrape and /augment/text-parser: the augmentation building blocks on their own,
// on the same code the chat pipeline uses, each billed at its configured price (INFERENCE or ADMIN keys).
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { scrapeUrl } from './scrape.ts';
import type { Principal } from '../auth/keys.ts';
import { perCallPrices } from '../billing/pricing.ts';
import { fileToText } from '../files/to-text.ts';
import { estimateTextTokens } from '../engines/text/estimate.ts';
import { metered } from '../billing/metered.ts';
import { isMultipart, readMultipart } from '../http/multipart.ts';
import { principalOf, type RequestCtx, withWalletCredit } from '../http/context.ts';
import type { ApiInput } from '../http/route.ts';
import { json, raw, type Reply } from '../http/reply.ts';
import { log } from '../log.ts';

/**
 * A metered call at the configured price per call (not rate-limited: no model runs): reserves the price, runs the
 * work, and bills one call only when the work succeeded. The usage row counts the search or scraped page too.
 */
async function billed<T>(
  ctx: RequestCtx,
  p: Principal,
  price: number,
  usage: { modelId: string; endpoint: string; searches?: number; scrapedUrls?: number },
  work: () => Promise<T>,
): Promise<T> {
  const used = { calls: 1, searches: usage.searches, scrapedUrls: usage.scrapedUrls };
  const call = { modelId: usage.modelId, endpoint: usage.endpoint, prices: perCallPrices(price), unit: 'call' as const, estimate: used };
  // A signed-in wallet short of credit hears the wallet 402 (how to top up), as on the inference endpoints.
  return withWalletCredit(ctx, () =>
    metered(ctx.svc, { principal: p, requestId: ctx.requestId, responseHeaders: ctx.extraHeaders }, call, async (meter) => {
      const value = await work();
      meter.settle(used);
      return value;
    }),
  );
}

export const searchBody = z.strictObject({
  query: z.string().trim().min(1).max(400),
  limit: z.number().int().min(1).max(20).default(10),
  search_provider: z.string().max(64).optional(),
});

export async function augmentSearch(ctx: RequestCtx, { body }: ApiInput<z.output<typeof searchBody>, unknown>): Promise<Reply> {
  const p = principalOf(ctx);
  const providers = ctx.svc.searchProviders;
  if (!providers.length) throw new ApiError('INVALID_REQUEST', 'Web search is not configured on this server');
  // Any configured provider by name (case-insensitive); none named: the default.
  const wanted = body.search_provider?.trim().toLowerCase();
  const provider = wanted ? providers.find((p) => p.name === wanted) : providers[0];
  if (!provider) {
    const names = providers.map((p) => `"${p.name}"`).join(', ');
    throw new ApiError('INVALID_REQUEST', `search_provider "${body.search_provider}" is not configured here; configured: ${names}`, {
      param: 'search_provider',
    });
  }
  const results = await billed(
    ctx,
    p,
    ctx.svc.config.augmentPrices.search,
    { modelId: `augment:search:${provider.name}`, endpoint: '/augment/search', searches: 1 },
    async () => {
      try {
        return await provider.search(body.query, { count: body.limit, signal: ctx.signal });
      } catch (e) {
        log.warn(`augment search failed: ${(e as Error).message}`);
        throw new ApiError('INFERENCE_FAILED', 'The search provider failed; nothing was charged. Try again later.');
      }
    },
  );
  return json({ query: body.query, results: results.map((r) => ({ title: r.title, url: r.url, content: r.content, date: r.date ?? '' })) });
}

export const scrapeBody = z.strictObject({ url: z.string().url().max(2048) });

export async function augmentScrape(ctx: RequestCtx, { body }: ApiInput<z.output<typeof scrapeBody>, unknown>): Promise<Reply> {
  const p = principalOf(ctx);
  const page = await billed(ctx, p, ctx.svc.config.augmentPrices.scrapedUrl, { modelId: 'augment:scrape', endpoint: '/augment/scrape', scrapedUrls: 1 }, () =>
    scrapeUrl(body.url, { signal: ctx.signal, allowHosts: ctx.svc.config.fetchAllowHosts, format: 'markdown' }),
  );
  return json({ url: page.url, title: page.title, content: page.content, format: 'markdown' });
}

/** multipart/form-data with a `file` field (and optional `response_format`: json or text). */
export async function augmentTextParser(ctx: RequestCtx): Promise<Reply> {
  const p = principalOf(ctx);
  if (!isMultipart(ctx.req.headers['content-type'])) {
    throw new ApiError('INVALID_CONTENT_TYPE', 'Send the document as multipart/form-data with a "file" field');
  }
  // The bounded reader every upload route uses: a body of 300,000 tiny parts is a 400, not seconds of parsing.
  const form = await readMultipart(ctx, { maxBytes: 25 * 1024 * 1024, maxFiles: 1 });
  const file = form.files.find((f) => f.name === 'file');
  if (!file) throw new ApiError('INVALID_REQUEST', 'The form needs a "file" field holding the document', { param: 'file' });
  const format = form.fields.response_format ?? 'json';
  if (format !== 'json' && format !== 'text') throw new ApiError('INVALID_REQUEST', 'response_format must be json or text', { param: 'response_format' });
  const { text } = await billed(ctx, p, ctx.svc.config.augmentPrices.textParser, { modelId: 'augment:text-parser', endpoint: '/augment/text-parser' }, () =>
    fileToText(
      { data: file.bytes, filename: file.filename, mimeType: file.contentType === 'application/octet-stream' ? undefined : file.contentType },
      { maxBytes: 25 * 1024 * 1024 },
    ),
  );
  if (format === 'text') {
    return raw({ 'content-type': 'text/plain; charset=utf-8' }, text);
  }
  return json({ text, tokens: estimateTextTokens(text) });
}
