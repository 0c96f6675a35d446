import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ApiError } from '../api/errors.ts';
import { loadConfig } from '../config.ts';
import { safeFetch } from './safe-fetch.ts';
import type { ResolvedAddress } from './safe-fetch.ts';

let server: http.Server;
let port: number;
let base: string;

/** Loopback fixture: each path is one behaviour the client has to cope with. */
function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
  const path = req.url ?? '/';
  const redirect = (to: string) => res.writeHead(302, { location: to }).end();
  if (path === '/hello') res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('hello world');
  else if (path === '/host') res.end(req.headers.host);
  else if (path === '/missing') res.writeHead(404).end('nope');
  else if (path === '/loop') redirect('/loop');
  else if (path.startsWith('/hops/')) {
    const left = Number(path.slice('/hops/'.length));
    redirect(left > 0 ? `/hops/${left - 1}` : '/hello');
  } else if (path === '/to-localhost') redirect(`http://localhost:${port}/hello`);
  else if (path === '/to-metadata') redirect('http://169.254.169.254/latest/meta-data/');
  else if (path === '/to-file') redirect('file:///etc/passwd');
  else if (path === '/endless') {
    // Chunked, no content-length: only counting while streaming can stop it.
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  } else if (path === '/declared-huge') {
    res.writeHead(200, { 'content-length': String(50 * 1024 * 1024) });
    res.write('x');
  } else if (path === '/gzip') res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('compressed hello'));
  else if (path === '/gzip-bomb') res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(4 * 1024 * 1024)));
  else if (path === '/slow-body') {
    res.writeHead(200);
    res.write('partial'); // and never finishes
  } else if (path === '/no-response') {
    // accept the request, never answer
  } else res.writeHead(404).end();
}

before(async () => {
  server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

const allow = { allowHosts: ['127.0.0.1'] };

async function refused(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected an ApiError, got ${String(e)}`);
    assert.equal(e.code, 'INVALID_REQUEST');
    assert.match(e.message, pattern);
    return true;
  });
}

/** A resolver from a fixed table that records what it was asked. */
function fakeDns(table: Record<string, string[]>) {
  const asked: string[] = [];
  const lookup = async (hostname: string): Promise<ResolvedAddress[]> => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, asked };
}

describe('safeFetch: address checks', () => {
  it('refuses loopback without an allowlist entry', async () => {
    await refused(safeFetch(`${base}/hello`, { allowHosts: [] }), /private or reserved address \(loopback\)/);
  });

  it('fetches from an allowlisted host', async () => {
    const res = await safeFetch(`${base}/hello#fragment`, allow);
    assert.equal(res.status, 200);
    assert.equal(res.contentType, 'text/plain; charset=utf-8');
    assert.equal(res.body.toString(), 'hello world');
    assert.equal(res.url, `${base}/hello`);
  });

  it('refuses a redirect from an allowlisted host to a host that is not on the list', async () => {
    // localhost is the same machine, but the allowlist names 127.0.0.1 only.
    const dns = fakeDns({ localhost: ['127.0.0.1'] });
    await refused(safeFetch(`${base}/to-localhost`, { ...allow, lookup: dns.lookup }), /private or reserved address \(loopback\)/);
    assert.deepEqual(dns.asked, ['localhost']);
  });

  it('refuses a hostname that resolves to a private address', async () => {
    const dns = fakeDns({ 'intranet.example': ['10.1.2.3'], 'mixed.example': ['93.184.216.34', '192.168.0.10'] });
    await refused(safeFetch('http://intranet.example/', { allowHosts: [], lookup: dns.lookup }), /\(private\)/);
    // One bad address is enough: the connection could go to any of them.
    await refused(safeFetch('http://mixed.example/', { allowHosts: [], lookup: dns.lookup }), /\(private\)/);
  });

  it('refuses localhost through the system resolver', async () => {
    await refused(safeFetch(`http://localhost:${port}/hello`, { allowHosts: [] }), /private or reserved address \(loopback\)/);
  });

  it('refuses private IP literals in any spelling', async () => {
    await refused(safeFetch(`http://[::ffff:127.0.0.1]:${port}/`, { allowHosts: [] }), /\(loopback\)/);
    await refused(safeFetch(`http://0x7f000001:${port}/`, { allowHosts: [] }), /\(loopback\)/);
    await refused(safeFetch('http://[::1]/', { allowHosts: [] }), /\(loopback\)/);
    await refused(safeFetch('http://10.0.0.1/', { allowHosts: [] }), /\(private\)/);
    await refused(safeFetch('http://0.0.0.0/', { allowHosts: [] }), /\(unspecified\)/);
  });

  it('refuses cloud metadata endpoints, even allowlisted, without resolving them', async () => {
    const dns = fakeDns({});
    const opts = { allowHosts: ['169.254.169.254', 'metadata.google.internal'], lookup: dns.lookup };
    await refused(safeFetch('http://169.254.169.254/latest/meta-data/', opts), /cloud metadata/);
    await refused(safeFetch('http://metadata.google.internal/computeMetadata/v1/', opts), /cloud metadata/);
    await refused(safeFetch('http://METADATA.google.internal./', opts), /cloud metadata/);
    await refused(safeFetch(`${base}/to-metadata`, allow), /cloud metadata/);
    assert.deepEqual(dns.asked, []);
  });

  it('connects to the vetted address, keeping the hostname for the Host header', async () => {
    // fixture.test exists only in this resolver; reaching the server proves the connection used its answer.
    const dns = fakeDns({ 'fixture.test': ['127.0.0.1'] });
    const res = await safeFetch(`http://fixture.test:${port}/host`, { allowHosts: ['fixture.test'], lookup: dns.lookup });
    assert.equal(res.body.toString(), `fixture.test:${port}`);
    assert.deepEqual(dns.asked, ['fixture.test']);
  });

  it('reports a host that does not resolve', async () => {
    const dns = fakeDns({});
    await refused(safeFetch('http://nowhere.test/', { lookup: dns.lookup }), /could not resolve host "nowhere\.test"/);
  });
});

describe('safeFetch: URL rules', () => {
  it('refuses schemes other than http and https', async () => {
    await refused(safeFetch('file:///etc/passwd', allow), /only http and https/);
    await refused(safeFetch('ftp://127.0.0.1/', allow), /only http and https/);
    await refused(safeFetch('gopher://127.0.0.1:70/', allow), /only http and https/);
    await refused(safeFetch('data:text/plain,hi', allow), /only http and https/);
    await refused(safeFetch(`${base}/to-file`, allow), /only http and https/);
  });

  it('refuses credentials and invalid URLs', async () => {
    await refused(safeFetch(`http://user:secret@127.0.0.1:${port}/hello`, allow), /credentials/);
    await refused(safeFetch(`http://user@127.0.0.1:${port}/hello`, allow), /credentials/);
    await refused(safeFetch('not a url', allow), /invalid URL/);
  });
});

describe('safeFetch: redirects', () => {
  it('follows redirects up to the cap and reports the final URL', async () => {
    const res = await safeFetch(`${base}/hops/2`, allow);
    assert.equal(res.body.toString(), 'hello world');
    assert.equal(res.url, `${base}/hello`);
  });

  it('refuses too many redirects', async () => {
    await refused(safeFetch(`${base}/loop`, allow), /too many redirects \(more than 3\)/);
    await refused(safeFetch(`${base}/hops/1`, { ...allow, maxRedirects: 1 }), /too many redirects \(more than 1\)/);
    await refused(safeFetch(`${base}/hops/0`, { ...allow, maxRedirects: 0 }), /too many redirects/);
  });
});

describe('safeFetch: size and time caps', () => {
  it('refuses a chunked body that grows past maxBytes', async () => {
    await refused(safeFetch(`${base}/endless`, { ...allow, maxBytes: 100 * 1024 }), /response larger than 100 KB/);
  });

  it('refuses an over-size content-length before reading', async () => {
    await refused(safeFetch(`${base}/declared-huge`, allow), /response larger than 5 MB/);
  });

  it('decompresses gzip and caps the decompressed size', async () => {
    assert.equal((await safeFetch(`${base}/gzip`, allow)).body.toString(), 'compressed hello');
    await refused(safeFetch(`${base}/gzip-bomb`, { ...allow, maxBytes: 1024 * 1024 }), /response larger than 1 MB/);
  });

  it('times out a body that never finishes and a server that never answers', async () => {
    const started = Date.now();
    await refused(safeFetch(`${base}/slow-body`, { ...allow, timeoutMs: 200 }), /timed out fetching URL/);
    await refused(safeFetch(`${base}/no-response`, { ...allow, timeoutMs: 200 }), /timed out fetching URL/);
    assert.ok(Date.now() - started < 3000);
  });

  it('times out a resolver that never answers', async () => {
    const lookup = () => new Promise<ResolvedAddress[]>(() => {});
    await refused(safeFetch('http://stuck.test/', { timeoutMs: 100, lookup }), /timed out fetching URL/);
  });

  it("stops when the caller's signal aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await refused(safeFetch(`${base}/no-response`, { ...allow, signal: controller.signal }), /cancelled/);
  });
});

describe('safeFetch: responses and network errors', () => {
  it('returns non-2xx responses with their status', async () => {
    const res = await safeFetch(`${base}/missing`, allow);
    assert.equal(res.status, 404);
    assert.equal(res.body.toString(), 'nope');
  });

  it('reports a refused connection', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await refused(safeFetch(`http://127.0.0.1:${closedPort}/`, allow), /could not fetch URL: connection refused/);
  });
});

describe('allowlist', () => {
  it('parses LAGOON_FETCH_ALLOW_HOSTS into canonical hosts', () => {
    const env = { LAGOON_FETCH_ALLOW_HOSTS: ' Intranet.Example. , 10.0.0.5,[::1], 0:0::2 ,127.1,, bücher.example ' };
    assert.deepEqual(loadConfig(env).fetchAllowHosts, ['intranet.example', '10.0.0.5', '::1', '::2', '127.0.0.1', 'xn--bcher-kva.example']);
    assert.deepEqual(loadConfig({}).fetchAllowHosts, []);
  });

  it('rejects wildcards, ports, schemes and paths', () => {
    for (const bad of ['*', '*.example.com', 'host:8080', 'http://host', 'host/path', 'user@host', 'a b']) {
      assert.throws(() => loadConfig({ LAGOON_FETCH_ALLOW_HOSTS: bad }), /Invalid configuration: LAGOON_FETCH_ALLOW_HOSTS has a bad entry/, bad);
    }
  });

  it('allows nothing private unless the caller passes the configured list', async () => {
    const allowHosts = loadConfig({ LAGOON_FETCH_ALLOW_HOSTS: '127.0.0.1' }).fetchAllowHosts;
    assert.equal((await safeFetch(`${base}/hello`, { allowHosts })).body.toString(), 'hello world');
    await refused(safeFetch(`${base}/hello`), /\(loopback\)/);
  });
});
