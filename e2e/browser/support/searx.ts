// A loopback SearXNG: every query gets the same three results, so a chat with web search on has sources to cite.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const SEARCH_RESULTS = [
  {
    title: 'Lagoons of the Pacific',
    url: 'https://example.org/lagoons',
    content: 'A lagoon is a shallow body of water separated from the sea.',
    publishedDate: '2026-11-01',
  },
  { title: 'Coral reef atlas', url: 'https://example.org/reefs', content: 'Reefs often enclose lagoons.' },
  { title: 'Tides explained', url: 'https://example.org/tides', content: 'Tides move water in and out of lagoons.' },
];

export interface FakeSearx {
  url: string;
  queries: string[];
  /** The harness env that makes the service search here. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startFakeSearx(): Promise<FakeSearx> {
  const queries: string[] = [];
  const server = http.createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? '';
    queries.push(q);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query: q, results: SEARCH_RESULTS }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    queries,
    env: { LAGOON_SEARCH_PROVIDER: 'searxng', LAGOON_SEARXNG_URL: url },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
