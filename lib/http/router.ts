// A small exact-or-parameter router, one per API (`/api/v1`, `/api/app`): each has a few dozen routes, so a linear
// match over compiled patterns is both simplest and fast enough (a handful of string comparisons per request).
import { ApiError } from '../api/errors.ts';

interface Entry<R> {
  method: string;
  parts: string[];
  /** The full pattern (`/api/v1/api_keys/:id`): the label logs and metrics use instead of the raw path. */
  pattern: string;
  route: R;
}

export class Router<R> {
  private readonly entries: Entry<R>[] = [];
  private readonly prefix: string;

  /** `prefix` is only for messages: the path the routes are mounted under. */
  constructor(prefix: string) {
    this.prefix = prefix;
  }

  add(method: string, path: string, route: R): this {
    const parts = path.split('/').filter(Boolean);
    this.entries.push({ method, parts, pattern: `${this.prefix}/${parts.join('/')}`, route });
    return this;
  }

  /** Every route, for tables that check their own declarations. */
  all(): { method: string; path: string; route: R }[] {
    return this.entries.map((e) => ({ method: e.method, path: `/${e.parts.join('/')}`, route: e.route }));
  }

  /** The route, its pattern and the path parameters for a request, or a 404 / 405 ApiError. */
  match(method: string, path: string): { route: R; params: Record<string, string>; pattern: string } {
    const segs = path.split('/').filter(Boolean);
    let pathMatched = false;
    for (const r of this.entries) {
      if (r.parts.length !== segs.length) continue;
      // Path parameters by name: a null-prototype object, so no segment can reach Object.prototype.
      const params: Record<string, string> = Object.create(null);
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
      if (r.method === method || (method === 'HEAD' && r.method === 'GET')) return { route: r.route, params, pattern: r.pattern };
    }
    if (pathMatched) throw new ApiError('METHOD_NOT_ALLOWED', `Method ${method} is not allowed on ${this.prefix}${path}`);
    throw new ApiError('NOT_FOUND', `No such endpoint: ${method} ${this.prefix}${path}`);
  }
}
