// A text engine whose calls are spans of the request's trace (lib/metrics/tracing.ts): a completion or an embedding
// until it returns, a stream until its last chunk. Wrapped only when tracing is on, so the call path is unchanged
// otherwise.
import { failed, inSpan, openSpan } from '../../metrics/tracing.ts';
import type { EmbedOptions, Engine, EngineRequest } from './types.ts';

export function tracedEngine(engine: Engine, modelId: string): Engine {
  const attrs = (call: string) => ({ 'lagoon.model': modelId, 'lagoon.engine.router': engine.router, 'lagoon.engine.call': call });
  return {
    router: engine.router,
    countTokens: engine.countTokens?.bind(engine),
    close: engine.close?.bind(engine),
    embed: engine.embed && ((inputs: string[], opts: EmbedOptions) => inSpan('engine call', attrs('embed'), () => engine.embed!(inputs, opts))),
    complete: (req: EngineRequest) => inSpan('engine call', attrs('complete'), () => engine.complete(req)),
    async *stream(req: EngineRequest) {
      const span = openSpan('engine call', attrs('stream'));
      let chunks = 0;
      try {
        for await (const chunk of engine.stream(req)) {
          chunks++;
          yield chunk;
        }
      } catch (e) {
        failed(span, e);
        throw e;
      } finally {
        span?.setAttribute('lagoon.engine.chunks', chunks);
        span?.end();
      }
    },
  };
}
