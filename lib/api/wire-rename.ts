// Maps request bodies between the configured wire word and the canonical internal names, so schemas and the
// pipeline are written once. With the word `venice`, `venice_parameters` arrives and `service_parameters` is unknown.
import type { WireNames } from './wire.ts';

const PARAMS = 'service_parameters';
const INCLUDE = 'include_service_system_prompt';

// The renamed objects are built with Object.fromEntries: the client's keys become own data properties whatever
// they are (a `__proto__` key stays a key the strict schema refuses, instead of replacing the object's prototype).

/** Request body (wire names) → internal names. Leaves the body untouched for the default word. */
export function bodyToInternal(body: Record<string, unknown>, wire: WireNames): Record<string, unknown> {
  if (wire.params === PARAMS) return body;
  return Object.fromEntries(
    Object.entries(body).map(([k, v]): [string, unknown] => {
      if (k === wire.params) return [PARAMS, paramsToInternal(v, wire)];
      if (k === PARAMS) return [`__unknown__${PARAMS}`, v]; // not a field under this word: the strict schema rejects it
      return [k, v];
    }),
  );
}

function paramsToInternal(v: unknown, wire: WireNames): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  return Object.fromEntries(
    Object.entries(v).flatMap(([k, val]): [string, unknown][] => (k === wire.includeSystemPrompt ? [[INCLUDE, val]] : k === INCLUDE ? [] : [[k, val]])),
  );
}

/** An internal field path → the name the client sent. */
export function pathToWire(path: PropertyKey[], wire: WireNames): string[] {
  return path.map((p) => {
    const s = String(p);
    if (s === PARAMS) return wire.params;
    if (s === INCLUDE) return wire.includeSystemPrompt;
    if (s.startsWith('__unknown__')) return s.slice('__unknown__'.length);
    return s;
  });
}

/** Internal keys of a response object (the parameters echo) → wire names. */
export function echoToWire(echo: Record<string, unknown>, wire: WireNames): Record<string, unknown> {
  if (wire.params === PARAMS) return echo;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(echo)) out[k === INCLUDE ? wire.includeSystemPrompt : k] = v;
  return out;
}
