// Traces, with the official OpenTelemetry SDK, exported as OTLP over HTTP (JSON) to LAGOON_OTEL_ENDPOINT; off, and
// costing nothing but a flag test, when that is unset. One trace per request: the request's span (server.ts, with
// its request id, route and status; an incoming W3C `traceparent` becomes its parent), and beneath it the metered
// call's admission and hold, each engine call, and the settlement's commit. Log lines written inside a span carry its
// trace and span ids (lib/log.ts), so a trace and its log lines find each other.
import { type Attributes, context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { TracerProvider } from '@opentelemetry/sdk-trace';
import type { TracingConfig } from '../config.ts';
import { setLogMixin } from '../log.ts';

// Only the API is loaded with the server; the SDK and the exporter when tracing starts.
let provider: TracerProvider | undefined;
const TRACER = 'lagoon';

/** Starts exporting (once per process); a second call while on is a no-op. */
export async function startTracing(cfg: TracingConfig, version: string): Promise<void> {
  if (!cfg.endpoint || provider) return;
  const [
    { AsyncLocalStorageContextManager },
    { W3CTraceContextPropagator },
    { OTLPTraceExporter },
    { resourceFromAttributes },
    { BatchSpanProcessor, TracerProvider },
  ] = await Promise.all([
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace'),
  ]);
  if (provider) return;
  provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': cfg.serviceName, 'service.version': version }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: cfg.endpoint }), scheduledDelayMillis: cfg.exportDelayMs })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  setLogMixin(traceIds);
}

/** Sends what is waiting and stops (the service's close). */
export async function stopTracing(): Promise<void> {
  const p = provider;
  provider = undefined;
  if (!p) return;
  setLogMixin(undefined);
  await p.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
}

export const tracing = (): boolean => provider !== undefined;

/**
 * Runs `fn` inside a new span (a child of the active one), ended when `fn` settles; an error marks it. Without
 * tracing, just `fn()`.
 */
export function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!provider) return fn(undefined);
  return trace.getTracer(TRACER).startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (e) {
      failed(span, e);
      throw e;
    } finally {
      span.end();
    }
  });
}

/** A span the caller ends (work whose end is not a promise of this function: a stream, a settlement's commit). */
export function openSpan(name: string, attributes: Attributes): Span | undefined {
  if (!provider) return undefined;
  return trace.getTracer(TRACER).startSpan(name, { attributes });
}

export function failed(span: Span | undefined, e: unknown): void {
  if (!span) return;
  span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error)?.message ?? String(e) });
}

/**
 * The request's span, the root of its trace (or a child of the caller's, from its `traceparent`), active while `run`
 * runs; `finish` reads the status once the response is done.
 */
export function inRequestSpan(
  headers: Record<string, string | string[] | undefined>,
  name: string,
  attributes: Attributes,
  run: () => Promise<void>,
  finish: () => { name: string; attributes: Attributes },
): Promise<void> {
  if (!provider) return run();
  const parent = propagation.extract(context.active(), headers);
  const span = trace.getTracer(TRACER).startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      await run();
    } catch (e) {
      failed(span, e);
      throw e;
    } finally {
      const { name: final, attributes: done } = finish();
      span.updateName(final);
      span.setAttributes(done);
      if (typeof done['http.response.status_code'] === 'number' && done['http.response.status_code'] >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  });
}

/** The active span's ids, for a log line. */
export function traceIds(): { trace_id: string; span_id: string } | undefined {
  if (!provider) return undefined;
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const c = span.spanContext();
  return { trace_id: c.traceId, span_id: c.spanId };
}
