// OpenTelemetry traces (issue 35): with LAGOON_OTEL_ENDPOINT set, one chat request is one trace, received by an OTLP
// receiver in this test (OTLP/HTTP JSON on loopback): the request's span with its request id and route, and under it
// the metered call, the engine call and the settlement; an incoming traceparent becomes the request's parent.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { log } from '../../lib/log.ts';
import { inSpan } from '../../lib/metrics/tracing.ts';
import { type Harness, startHarness } from '../support/harness.ts';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

const spans: OtlpSpan[] = [];
let receiver: http.Server;
let h: Harness;

before(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && String(req.headers['content-type']).includes('json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
  h = await startHarness({ env: { LAGOON_OTEL_ENDPOINT: url, LAGOON_OTEL_EXPORT_DELAY_MS: '50' } });
});
after(async () => {
  await h?.close();
  receiver?.close();
});

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v && (v.stringValue ?? v.intValue ?? v.boolValue);
};

async function spansOf(traceId: string, names: string[]): Promise<OtlpSpan[]> {
  for (let i = 0; i < 200; i++) {
    const mine = spans.filter((s) => s.traceId === traceId);
    if (names.every((n) => mine.some((s) => s.name === n))) return mine;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`spans ${names.join(', ')} of trace ${traceId} never arrived; got ${spans.map((s) => s.name).join(', ')}`);
}

test('a chat request is one trace: the request, the metered call, the engine call and the settlement', async () => {
  const { key } = await h.newAccount({ usd: 1 });
  // The caller's own trace: the request's span becomes a child of it.
  const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const res = await fetch(`${h.base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` },
    body: JSON.stringify({ model: 'scripted-model', stream: true, messages: [{ role: 'user', content: '[[tokens:5]]' }] }),
  });
  assert.equal(res.status, 200);
  await res.text();
  const requestId = res.headers.get('cf-ray');
  const mine = await spansOf(callerTrace, ['POST /api/v1/chat/completions', 'metered call', 'engine call', 'settlement']);
  const root = mine.find((s) => s.name === 'POST /api/v1/chat/completions')!;
  assert.equal(root.parentSpanId, '00f067aa0ba902b7', 'a child of the caller’s span');
  assert.equal(attr(root, 'lagoon.request_id'), requestId);
  assert.equal(attr(root, 'http.route'), '/api/v1/chat/completions');
  assert.equal(Number(attr(root, 'http.response.status_code')), 200);
  for (const name of ['metered call', 'engine call', 'settlement']) {
    const s = mine.find((x) => x.name === name)!;
    assert.equal(s.parentSpanId, root.spanId, `${name} is under the request`);
  }
  assert.equal(attr(mine.find((s) => s.name === 'metered call')!, 'lagoon.model'), 'scripted-model');
  assert.ok(Number(attr(mine.find((s) => s.name === 'engine call')!, 'lagoon.engine.chunks')) > 0);
});

test('a log line written inside a span carries its trace and span ids', async () => {
  // The logger's own mixin: what pino adds to every line it writes.
  const fields = () => (log as unknown as Record<symbol, () => object>)[pino.symbols.mixinSym]();
  const ids = await inSpan('probe', {}, async (span) => ({ inside: fields(), span: span?.spanContext() }));
  assert.deepEqual(ids.inside, { trace_id: ids.span?.traceId, span_id: ids.span?.spanId });
  assert.deepEqual(fields(), {}, 'outside a span, nothing');
});
