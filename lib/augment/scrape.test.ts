import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { ApiError } from '../api/errors.ts';
import { findUrls, scrapeAll, scrapeUrl } from './scrape.ts';

const paragraph = (topic: string) =>
  `${topic} are shallow bodies of water separated from the open sea by reefs, sandbars or barrier islands, ` +
  'and the calm water inside them supports seagrass meadows, mangroves and nurseries for many kinds of fish. ';

const articleHtml = `<!doctype html>
<html><head><title>Coral lagoons | Reef Weekly</title><style>.ad { color: red }</style></head>
<body>
  <header><nav class="menu"><a href="/">Home</a> <a href="/shop">NAVSHOP products</a> <a href="/about">About us</a></nav></header>
  <div class="advert sponsored">ADVERTISEMENT buy BUYNOW sunglasses today</div>
  <main><article>
    <h1>Coral lagoons explained</h1>
    <p>${paragraph('Lagoons').repeat(3)}</p>
    <p>${paragraph('Atoll lagoons').repeat(3)}</p>
    <p>The  largest   lagoon in the world is   New Caledonia's, at about 24,000 square kilometres.</p>
  </article></main>
  <aside class="sidebar"><h3>Related</h3><ul><li><a href="/x">SIDEBARLINK one</a></li></ul></aside>
  <footer>Copyright FOOTERTEXT 2024 Reef Weekly</footer>
  <script>var TRACKING = 1;</script>
</body></html>`;

const richHtml = `<!doctype html>
<html><head><title>Tide guide</title></head>
<body>
  <nav><a href="/">NAVHOME</a></nav>
  <article>
    <h1>Reading the tides</h1>
    <p>${paragraph('Tidal lagoons').repeat(2)} See the <a href="/charts/today">chart of the day</a> or
      <a href="javascript:alert(1)">this trick</a>, and <del>never</del> swim at <strong>low water</strong>.</p>
    <h2>What to pack</h2>
    <ul><li>A tide table</li><li>Water <em>shoes</em></li></ul>
    <ol><li>Check the table</li><li>Leave early</li></ol>
    <pre><code class="language-python">def high_water(t):\n    return t + 6.2</code></pre>
    <table><thead><tr><th>Place</th><th>High | Low</th></tr></thead>
      <tbody><tr><td>North inlet</td><td>06:12</td></tr><tr><td>South reef</td><td>06:40</td></tr></tbody></table>
    <p>${paragraph('Reef lagoons').repeat(2)}</p>
  </article>
  <script>var TRACKING = 1;</script>
</body></html>`;

let pdf: Buffer;
let server: http.Server;
let port: number;
let base: string;

function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
  const path = req.url ?? '/';
  const ok = (type: string | undefined, body: string | Buffer) => res.writeHead(200, type ? { 'content-type': type } : {}).end(body);
  if (path === '/article') ok('text/html; charset=utf-8', articleHtml);
  else if (path === '/rich') ok('text/html; charset=utf-8', richHtml);
  else if (path === '/fragment') ok('text/html', '<div>Opening hours: <b>9 to 5</b></div><script>var SCRIPTED = 1;</script>');
  else if (path === '/footer-only') ok('text/html', '<html><body><footer>Call the <i>FALLBACK</i> desk</footer><style>p{}</style></body></html>');
  else if (path === '/latin1') ok('text/html; charset=iso-8859-1', Buffer.from('<html><body><p>Caf\xe9 au lait</p></body></html>', 'latin1'));
  else if (path === '/plain.txt') ok('text/plain; charset=utf-8', 'Tide table\n\n  High water   06:12\n\n\n\nLow water 12:30\n');
  else if (path === '/nested.md') ok('text/markdown', '# Plan\r\n\r\n- outer\r\n    - inner\r\n\r\n        code\r\n');
  else if (path === '/bare-table') ok('text/html', '<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>');
  else if (path === '/notes.md') ok('text/markdown', '# Lagoon notes\n\nSome *markdown* text.');
  else if (path === '/docs/report%20final.pdf') ok('application/pdf', pdf);
  else if (path === '/untyped') ok(undefined, pdf);
  else if (path === '/download') ok('application/octet-stream', pdf);
  else if (path === '/blob.bin') ok('application/octet-stream', Buffer.from([0, 1, 2, 3]));
  else if (path === '/long.txt') ok('text/plain', 'x'.repeat(500));
  else if (path === '/image.png') ok('image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  else if (path === '/redirect') res.writeHead(302, { location: '/plain.txt' }).end();
  else res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
}

before(async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText('QUARTERLY lagoon survey: salinity rose', { x: 50, y: 700, font, size: 14 });
  pdf = Buffer.from(await doc.save());
  server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

const allowHosts = ['127.0.0.1'];

describe('scrapeUrl', () => {
  it('extracts the article from an HTML page, without navigation, adverts, sidebar, footer or scripts', async () => {
    const page = await scrapeUrl(`${base}/article`, { allowHosts });
    assert.equal(page.url, `${base}/article`);
    assert.match(page.title, /Coral lagoons/);
    assert.match(page.content, /Lagoons are shallow bodies of water separated from the open sea/);
    assert.match(page.content, /Atoll lagoons are shallow/);
    assert.match(page.content, /The largest lagoon in the world is New Caledonia's/, 'whitespace is collapsed');
    for (const chrome of ['NAVSHOP', 'BUYNOW', 'SIDEBARLINK', 'FOOTERTEXT', 'TRACKING', 'color: red']) {
      assert.ok(!page.content.includes(chrome), `${chrome} leaked into ${page.content}`);
    }
    assert.ok(!/explainedLagoons/.test(page.content), 'the heading and the first paragraph stay apart');
  });

  it('as Markdown: headings, absolute links, lists, emphasis, fenced code with its language, and GFM tables', async () => {
    const { content } = await scrapeUrl(`${base}/rich`, { allowHosts, format: 'markdown' });
    assert.match(content, /^## Reading the tides$/m);
    assert.match(content, /^## What to pack$/m);
    assert.ok(content.includes(`[chart of the day](${base}/charts/today)`), content);
    assert.ok(!content.includes('javascript:'), 'script links lose their target');
    assert.ok(content.includes('~~never~~') && content.includes('**low water**') && content.includes('_shoes_'), content);
    assert.match(content, /^- {1,3}A tide table$/m);
    assert.match(content, /^1\. {1,2}Check the table$/m);
    assert.ok(content.includes('```python\ndef high_water(t):\n    return t + 6.2\n```'), content);
    assert.ok(content.includes('| Place | High \\| Low |\n| --- | --- |\n| North inlet | 06:12 |\n| South reef | 06:40 |'), content);
    for (const chrome of ['NAVHOME', 'TRACKING']) assert.ok(!content.includes(chrome), `${chrome} leaked into ${content}`);
  });

  it('as Markdown: a Markdown file keeps its indentation; a table without a header row gets a blank one', async () => {
    const md = await scrapeUrl(`${base}/nested.md`, { allowHosts, format: 'markdown' });
    assert.equal(md.content, '# Plan\n\n- outer\n    - inner\n\n        code');
    const bare = await scrapeUrl(`${base}/bare-table`, { allowHosts, format: 'markdown' });
    assert.equal(bare.content, '|  |  |\n| --- | --- |\n| a | b |\n| c |  |');
  });

  it('falls back to the body text of a page without an article, and honours the charset', async () => {
    const fragment = await scrapeUrl(`${base}/fragment`, { allowHosts });
    assert.match(fragment.content, /Opening hours: 9 to 5/);
    assert.ok(!fragment.content.includes('SCRIPTED'));
    // Readability finds no article in a page that is only a footer; the body text stands in.
    const footer = await scrapeUrl(`${base}/footer-only`, { allowHosts });
    assert.deepEqual(footer, { url: `${base}/footer-only`, title: 'footer-only', content: 'Call the FALLBACK desk' });
    assert.equal((await scrapeUrl(`${base}/latin1`, { allowHosts })).content, 'Café au lait');
  });

  it('passes plain text and markdown through, whitespace tidied', async () => {
    const text = await scrapeUrl(`${base}/plain.txt`, { allowHosts });
    assert.deepEqual(text, { url: `${base}/plain.txt`, title: 'plain.txt', content: 'Tide table\n\nHigh water 06:12\n\nLow water 12:30' });
    const md = await scrapeUrl(`${base}/notes.md`, { allowHosts });
    assert.equal(md.title, 'Lagoon notes');
    assert.equal(md.content, '# Lagoon notes\n\nSome *markdown* text.');
    const redirected = await scrapeUrl(`${base}/redirect`, { allowHosts });
    assert.equal(redirected.url, `${base}/plain.txt`);
  });

  it('reads a PDF, whether labelled or not', async () => {
    const page = await scrapeUrl(`${base}/docs/report%20final.pdf`, { allowHosts });
    assert.equal(page.title, 'report final.pdf');
    assert.match(page.content, /QUARTERLY lagoon survey: salinity rose/);
    assert.match((await scrapeUrl(`${base}/untyped`, { allowHosts })).content, /QUARTERLY lagoon survey/);
    assert.match((await scrapeUrl(`${base}/download`, { allowHosts })).content, /QUARTERLY lagoon survey/);
  });

  it('cuts long text at maxChars with a note', async () => {
    const page = await scrapeUrl(`${base}/long.txt`, { allowHosts, maxChars: 100 });
    assert.equal(page.content, `${'x'.repeat(100)}\n\n[Truncated: showing the first 100 of 500 characters]`);
  });

  it('fails on an error status and an unsupported content type', async () => {
    await assert.rejects(scrapeUrl(`${base}/missing`, { allowHosts }), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 'INVALID_REQUEST');
      assert.equal(e.message, `could not fetch ${base}/missing: HTTP 404`);
      return true;
    });
    await assert.rejects(scrapeUrl(`${base}/image.png`, { allowHosts }), {
      code: 'INVALID_REQUEST',
      message: `unsupported content type "image/png" at ${base}/image.png`,
    });
    await assert.rejects(scrapeUrl(`${base}/blob.bin`, { allowHosts }), { message: `unsupported content type "application/octet-stream" at ${base}/blob.bin` });
  });

  it('refuses loopback hosts that are not allowlisted', async () => {
    await assert.rejects(scrapeUrl(`http://localhost:${port}/article`, { allowHosts }), {
      code: 'INVALID_REQUEST',
      message: /private or reserved address/,
    });
    await assert.rejects(scrapeUrl(`${base}/article`, { allowHosts: [] }), { message: /private or reserved address \(loopback\)/ });
  });
});

describe('scrapeAll', () => {
  it('scrapes concurrently and reports failures per URL instead of throwing', async () => {
    const urls = [`${base}/plain.txt`, `${base}/missing`, `http://localhost:${port}/plain.txt`, `${base}/notes.md`, 'not a url'];
    const { pages, failed } = await scrapeAll(urls, { allowHosts });
    assert.deepEqual(
      pages.map((p) => p.url),
      [`${base}/plain.txt`, `${base}/notes.md`],
    );
    assert.deepEqual(
      failed.map((f) => f.url),
      [`${base}/missing`, `http://localhost:${port}/plain.txt`, 'not a url'],
    );
    assert.match(failed[0].reason, /HTTP 404/);
    assert.match(failed[1].reason, /private or reserved/);
    assert.match(failed[2].reason, /invalid URL/);
    assert.deepEqual(await scrapeAll([]), { pages: [], failed: [] });
  });
});

describe('findUrls', () => {
  it('finds http(s) URLs, strips trailing punctuation and keeps balanced parentheses', () => {
    const text =
      'See https://a.example/x. And http://b.example/y, also (https://c.example/z) and ' +
      'https://en.wikipedia.org/wiki/Lagoon_(disambiguation). Read [this](https://d.example/p?q=1&r=2)! ' +
      'Or <https://e.example/>; "https://f.example/quoted"';
    assert.deepEqual(findUrls(text, 10), [
      'https://a.example/x',
      'http://b.example/y',
      'https://c.example/z',
      'https://en.wikipedia.org/wiki/Lagoon_(disambiguation)',
      'https://d.example/p?q=1&r=2',
      'https://e.example/',
      'https://f.example/quoted',
    ]);
  });

  it('dedupes, caps at max (default 5) and skips what is not a web URL', () => {
    const many = Array.from({ length: 8 }, (_, i) => `https://site${i}.example/`).join(' ');
    assert.equal(findUrls(many).length, 5);
    assert.deepEqual(findUrls(many, 2), ['https://site0.example/', 'https://site1.example/']);
    assert.deepEqual(findUrls('https://a.example/x https://a.example/x. HTTPS://A.example/x'), ['https://a.example/x']);
    assert.deepEqual(findUrls('ftp://a.example/f file:///etc/passwd https:// http://?x www.example.com'), []);
    assert.deepEqual(findUrls('链接：https://g.example/页面。谢谢'), ['https://g.example/页面']);
    assert.deepEqual(findUrls('no links here'), []);
  });
});
