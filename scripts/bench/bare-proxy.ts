#!/usr/bin/env node
// The floor the relays are measured against: a bare node:http + undici pass-through to one upstream, with no auth,
// no limits, no billing and no parsing. What it adds is the cost of the extra hop itself (two HTTP parses and
// writes, one loopback round trip); what Lagoon adds beyond it is its own request path.
//   node scripts/bench/bare-proxy.ts --port P --upstream http://127.0.0.1:U
import http from 'node:http';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({ options: { port: { type: 'string' }, upstream: { type: 'string' } } });
const upstream = new Pool(values.upstream!, { connections: 2048, pipelining: 1 });

http
  .createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      upstream
        .request({
          method: 'POST',
          path: req.url!,
          headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
          body: Buffer.concat(chunks),
        })
        .then(({ statusCode, headers, body }) => {
          res.writeHead(statusCode, { 'content-type': String(headers['content-type'] ?? 'application/json') });
          body.on('data', (c: Buffer) => res.write(c));
          body.on('end', () => res.end());
          body.on('error', () => res.destroy());
        })
        .catch(() => res.writeHead(502).end());
    });
  })
  .listen(Number(values.port), '127.0.0.1', () => console.log(`bare proxy on http://127.0.0.1:${values.port}`));
