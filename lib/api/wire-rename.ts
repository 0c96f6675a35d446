// Maps request bodies between the configured wire word and the canonical internal names, so schemas and the
// pipeline are written once. With the word `venice`, `venice_parameters` arrives and `service_parameters` is unknown.
import type { WireNames } from './wire.ts';

const PARAMS = 'service_parameters';
const INCLUDE = 'include_service_system_prompt';

/** Request body (wire names) → internal names. Leaves the body untouched for the default word. */
export function bodyToInternal(body: Record<string, unknown>, wire: WireNames): Record<string, unknown> {
  if (wire.params === PARAMS) return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (k === wire.params) out[PARAMS] = paramsToInternal(v, wire);
    else if (k === PARAMS) out[`__unknown__${PARAMS}`] = v; // not a field under this word: the strict schema rejects it
    else out[k] = v;
  }
  return out;
}

function paramsToInternal(v: unknown, wire: WireNames): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) {
    if (k === wire.includeSystemPrompt) out[INCLUDE] = val;
    else if (k !== INCLUDE) out[k] = val;
  }
  return out;
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
