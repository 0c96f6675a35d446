// A small exact-or-parameter router, one per API (`/api/v1`, `/api/app`): each has a few dozen routes. Most are
// static, so a request for one is answered by one Map lookup; the rest are a linear match over compiled patterns.
import { ApiError } from '../api/errors.ts';

interface Entry<R> {
  method: string;
  parts: string[];
  /** Per segment, whether it is a parameter (`:id`): worked out once, not per request. */
  params: boolean[];
  /** The full pattern (`/api/v1/api_keys/:id`): the label logs and metrics use instead of the raw path. */
  pattern: string;
  route: R;
}

export class Router<R> {
  private readonly entries: Entry<R>[] = [];
  /** The entries by their number of segments, in the order they were added: a path is matched only against these. */
  private readonly byLength = new Map<number, Entry<R>[]>();
  /**
   * `METHOD /path` of a static route to the entry the linear match would pick for exactly that method and path, so
   * the shortcut never changes which route wins. Paths with empty segments or parameters take the linear match.
   */
  private readonly statics = new Map<string, Entry<R>>();
  private readonly prefix: string;

  /** `prefix` is only for messages: the path the routes are mounted under. */
  constructor(prefix: string) {
    this.prefix = prefix;
  }

  add(method: string, path: string, route: R): this {
    const parts = path.split('/').filter(Boolean);
    const entry = { method, parts, params: parts.map((p) => p.startsWith(':')), pattern: `${this.prefix}/${parts.join('/')}`, route };
    this.entries.push(entry);
    const same = this.byLength.get(parts.length);
    if (same) same.push(entry);
    else this.byLength.set(parts.length, [entry]);
    if (!parts.some((p) => p.startsWith(':'))) {
      const key = `${method} /${parts.join('/')}`;
      // The first entry to match wins: an earlier one (a parameter route) keeps the path for itself.
      if (!this.statics.has(key) && this.linear(method, parts)?.entry === entry) this.statics.set(key, entry);
    }
    return this;
  }

  /** Every route, for tables that check their own declarations. */
  all(): { method: string; path: string; route: R }[] {
    return this.entries.map((e) => ({ method: e.method, path: `/${e.parts.join('/')}`, route: e.route }));
  }

  /** The route, its pattern and the path parameters for a request, or a 404 / 405 ApiError. */
  match(method: string, path: string): { route: R; params: Record<string, string>; pattern: string } {
    const hit = this.statics.get(`${method} ${path}`);
    // Path parameters by name: a null-prototype object, so no segment can reach Object.prototype.
    if (hit) return { route: hit.route, params: Object.create(null), pattern: hit.pattern };
    const found = this.linear(method, path.split('/').filter(Boolean));
    if (found?.entry) return { route: found.entry.route, params: found.params, pattern: found.entry.pattern };
    if (found) throw new ApiError('METHOD_NOT_ALLOWED', `Method ${method} is not allowed on ${this.prefix}${path}`);
    throw new ApiError('NOT_FOUND', `No such endpoint: ${method} ${this.prefix}${path}`);
  }

  /** The first entry matching the segments and method; `entry` undefined when only the path matched (405); none: 404. */
  private linear(method: string, segs: string[]): { entry?: Entry<R>; params: Record<string, string> } | undefined {
    let pathMatched = false;
    for (const r of this.byLength.get(segs.length) ?? []) {
      // Made only when a parameter is met: most entries fail on a literal segment first.
      let params: Record<string, string> | undefined;
      let ok = true;
      for (let i = 0; i < segs.length && ok; i++) {
        if (r.params[i]) {
          try {
            params ??= Object.create(null) as Record<string, string>;
            params[r.parts[i].slice(1)] = decodeURIComponent(segs[i]);
          } catch {
            ok = false;
          }
        } else ok = r.parts[i] === segs[i];
      }
      if (!ok) continue;
      pathMatched = true;
      if (r.method === method || (method === 'HEAD' && r.method === 'GET')) return { entry: r, params: params ?? Object.create(null) };
    }
    return pathMatched ? { params: Object.create(null) } : undefined;
  }
}
