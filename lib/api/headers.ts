// The one place response headers are built: request id, revision and timestamp on every response; model and
// balance headers on inference responses.
import type { Balances } from '../billing/ledger.ts';
import { microsToString } from '../billing/money.ts';
import type { ModelEntry } from '../models/schema.ts';
import type { WireNames } from './wire.ts';

export interface HeaderContext {
  wire: WireNames;
  requestId: string;
  revision: string;
  hostName: string;
  timestamp: boolean;
}

export type HeaderMap = Record<string, string>;

// The base headers' names, built once per header prefix (one per process) rather than per response.
let namedPrefix: string | undefined;
let names = { version: '', timestamp: '' };
const baseNames = (prefix: string) =>
  prefix === namedPrefix ? names : ((namedPrefix = prefix), (names = { version: `${prefix}version`, timestamp: `${prefix}timestamp` }));

// `new Date().toISOString()` for now, at a tenth of its cost: the text up to the second is formatted once a second.
let isoSecond = Number.NaN;
let isoPrefix = '';
function isoNow(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== isoSecond) {
    isoSecond = second;
    isoPrefix = new Date(second * 1000).toISOString().slice(0, -4);
  }
  const ms = now - second * 1000;
  return `${isoPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
}

export function baseHeaders(ctx: HeaderContext): HeaderMap {
  const n = baseNames(ctx.wire.headerPrefix);
  // nosniff: a JSON or text body is never run as a script or rendered as HTML, whatever it contains.
  const h: HeaderMap = { 'CF-RAY': ctx.requestId, [n.version]: ctx.revision, 'X-Content-Type-Options': 'nosniff' };
  if (ctx.timestamp) h[n.timestamp] = isoNow();
  return h;
}

export function errorHeaders(ctx: HeaderContext): HeaderMap {
  return { [`${ctx.wire.headerPrefix}host-name`]: ctx.hostName };
}

export function modelHeaders(ctx: HeaderContext, model: ModelEntry, router: string): HeaderMap {
  const p = ctx.wire.headerPrefix;
  const h: HeaderMap = { [`${p}model-id`]: model.id, [`${p}model-name`]: model.name, [`${p}model-router`]: router };
  if (model.deprecation) {
    const replacement = model.deprecation.replacement ? ` Use ${model.deprecation.replacement} instead.` : '';
    h[`${p}model-deprecation-warning`] = `Model ${model.id} is deprecated and will be removed on ${model.deprecation.date}.${replacement}`;
    h[`${p}model-deprecation-date`] = model.deprecation.date;
  }
  return h;
}

/** Balances before the request was processed (what is spendable: held credit excluded). */
export function balanceHeaders(ctx: HeaderContext, b: Balances): HeaderMap {
  const p = ctx.wire.headerPrefix;
  return {
    [`${p}balance-usd`]: microsToString(b.usd - b.usdHeld),
    [`${p}balance-diem`]: microsToString(Math.max(0, b.diem - b.diemHeld)),
  };
}

/**
 * A JSON-RPC proxy answer: the credits charged (summed over a batch), their USD value, and the request id in the
 * public document's 32 characters (the CF-RAY id, zero-padded in front: the usage row is still found by its tail).
 */
export function rpcHeaders(ctx: HeaderContext, credits: number, costUsd: string): HeaderMap {
  const p = ctx.wire.headerPrefix;
  return { [`${p}rpc-credits`]: String(credits), [`${p}rpc-cost-usd`]: costUsd, 'X-Request-ID': ctx.requestId.padStart(32, '0') };
}

/** What the content check of an image response found: `check` says which ran ("none": no classifier, so no verdict). */
export interface ImageSafety {
  blurred: boolean;
  check: 'upstream' | 'none';
  /** The check's verdict; absent when no check ran, so the response never claims one did. */
  violation?: boolean;
}

/**
 * Image responses: whether the image was blurred (safe mode), which content check ran and, only when one ran, its
 * verdict; and the public API's deprecation flags, on top of modelHeaders' warning and date.
 */
export function imageHeaders(ctx: HeaderContext, model: ModelEntry, safety: ImageSafety): HeaderMap {
  const p = ctx.wire.headerPrefix;
  const h: HeaderMap = { [`${p}is-blurred`]: String(safety.blurred), [`${p}content-check`]: safety.check };
  if (safety.violation !== undefined) h[`${p}is-content-violation`] = String(safety.violation);
  if (model.deprecation) {
    h[`${p}deprecated`] = 'true';
    if (model.deprecation.replacement) h[`${p}deprecated-replacement`] = model.deprecation.replacement;
  }
  return h;
}
