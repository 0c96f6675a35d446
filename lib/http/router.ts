// A small exact-or-parameter router: the API has a few dozen routes, so a linear match over compiled patterns is
// both simplest and fast enough (a handful of string comparisons per request).
import { ApiError } from '../api/errors.ts';
import type { RequestCtx } from './context.ts';

export type Handler = (ctx: RequestCtx) => Promise<void>;

interface Route {
  method: string;
  parts: string[];
  handler: Handler;
}

export class Router {
  private readonly routes: Route[] = [];

  on(method: string, path: string, handler: Handler): this {
    this.routes.push({ method, parts: path.split('/').filter(Boolean), handler });
    return this;
  }

  /** The handler and path parameters for a request, or a 404 / 405 ApiError. */
  match(method: string, path: string): { handler: Handler; params: Record<string, string> } {
    const segs = path.split('/').filter(Boolean);
    let pathMatched = false;
    for (const r of this.routes) {
      if (r.parts.length !== segs.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < segs.length && ok; i++) {
        if (r.parts[i].startsWith(':')) {
          try {
            params[r.parts[i].slice(1)] = decodeURIComponent(segs[i]);
          } catch {
            ok = false;
          }
        } else ok = r.parts[i] === segs[i];
      }
      if (!ok) continue;
      pathMatched = true;
      if (r.method === method || (method === 'HEAD' && r.method === 'GET')) return { handler: r.handler, params };
    }
    if (pathMatched) throw new ApiError('METHOD_NOT_ALLOWED', `Method ${method} is not allowed on ${path}`);
    throw new ApiError('NOT_FOUND', `No such endpoint: ${method} /api/v1${path}`);
  }
}
