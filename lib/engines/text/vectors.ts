// Vector post-processing shared by every embedding engine: unit length, Matryoshka-style shortening, and OpenAI's
// base64 wire form (the official clients ask for it by default and decode it as little-endian float32).
import { endianness } from 'node:os';

/** A vector as an engine gives it: an array, or a Float64Array (a long one the JSON thread parsed). */
export type Vector = readonly number[] | Float64Array;

/** Scales a vector to unit L2 length; an all-zero vector stays as it is (it has no direction to keep). */
export function l2Normalise(v: Vector): number[] {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  return norm > 0 ? Array.from(v, (x) => x / norm) : Array.from(v);
}

/**
 * The first `dimensions` components, re-normalised: how models trained Matryoshka-style (text-embedding-3, nomic,
 * Qwen3-Embedding) are shortened. A vector already that short is returned unchanged.
 */
export function shorten(v: Vector, dimensions: number | undefined): Vector {
  if (dimensions === undefined || v.length <= dimensions) return v;
  return l2Normalise(v.slice(0, dimensions));
}

/** The vector as base64 of its little-endian float32 bytes (OpenAI's `encoding_format: "base64"`). */
export function toBase64(v: Vector): string {
  if (LITTLE_ENDIAN) {
    // Float32Array.from rounds as writeFloatLE does, in one native pass, and its bytes are already the wire's order.
    const floats = Float32Array.from(v);
    return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
  }
  const buf = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) buf.writeFloatLE(v[i], i * 4);
  return buf.toString('base64');
}

const LITTLE_ENDIAN = endianness() === 'LE';

/** The inverse of toBase64 (tests, and upstreams that answer in base64). */
export function fromBase64(s: string): number[] {
  const buf = Buffer.from(s, 'base64');
  const out = new Array<number>(buf.length >> 2);
  for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4);
  return out;
}
