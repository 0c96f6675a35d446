// A minimal GGUF v3 writer: metadata key/values plus F32 tensors, laid out the way llama.cpp reads them.
// Pure (no I/O): callers decide where the bytes go.
//
// Layout: "GGUF", u32 version, u64 tensor count, u64 metadata count, the metadata (u64-length key, u32 type,
// value), the tensor infos (name, u32 n_dims, u64 dims in ggml order, u32 ggml type, u64 offset from the data
// start), padding to the alignment, then each tensor's data padded to the alignment.

export type GgufValue =
  | { type: 'u32'; value: number }
  | { type: 'i32'; value: number }
  | { type: 'u64'; value: number | bigint }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'string[]'; value: readonly string[] }
  | { type: 'f32[]'; value: readonly number[] }
  | { type: 'i32[]'; value: readonly number[] };

export interface GgufTensor {
  name: string;
  /** ggml order: dims[0] is the row length (the input dimension of a weight matrix), dims[1] the row count. */
  dims: readonly number[];
  data: Float32Array;
}

// GGUF metadata value type ids.
const T_U32 = 4;
const T_I32 = 5;
const T_F32 = 6;
const T_BOOL = 7;
const T_STRING = 8;
const T_ARRAY = 9;
const T_U64 = 10;
const GGML_TYPE_F32 = 0;

/** The alignment llama.cpp assumes when the metadata has no `general.alignment`. */
export const GGUF_DEFAULT_ALIGNMENT = 32;

class ByteSink {
  private chunks: Buffer[] = [];
  length = 0;
  bytes(b: Buffer): void {
    this.chunks.push(b);
    this.length += b.length;
  }
  u32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.bytes(b);
  }
  i32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    this.bytes(b);
  }
  u64(n: number | bigint): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.bytes(b);
  }
  f32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(n);
    this.bytes(b);
  }
  bool(v: boolean): void {
    this.bytes(Buffer.from([v ? 1 : 0]));
  }
  str(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.bytes(b);
  }
  padTo(alignment: number): void {
    const pad = (alignment - (this.length % alignment)) % alignment;
    if (pad) this.bytes(Buffer.alloc(pad));
  }
  concat(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

function writeValue(out: ByteSink, v: GgufValue): void {
  switch (v.type) {
    case 'u32':
      out.u32(T_U32);
      out.u32(v.value);
      return;
    case 'i32':
      out.u32(T_I32);
      out.i32(v.value);
      return;
    case 'u64':
      out.u32(T_U64);
      out.u64(v.value);
      return;
    case 'f32':
      out.u32(T_F32);
      out.f32(v.value);
      return;
    case 'bool':
      out.u32(T_BOOL);
      out.bool(v.value);
      return;
    case 'string':
      out.u32(T_STRING);
      out.str(v.value);
      return;
    case 'string[]':
      out.u32(T_ARRAY);
      out.u32(T_STRING);
      out.u64(v.value.length);
      for (const s of v.value) out.str(s);
      return;
    case 'f32[]':
      out.u32(T_ARRAY);
      out.u32(T_F32);
      out.u64(v.value.length);
      for (const n of v.value) out.f32(n);
      return;
    case 'i32[]':
      out.u32(T_ARRAY);
      out.u32(T_I32);
      out.u64(v.value.length);
      for (const n of v.value) out.i32(n);
      return;
  }
}

/**
 * Serialises a GGUF v3 file. Metadata keys are written in insertion order. The alignment is taken from
 * `general.alignment` when present (it must then be a u32), else the GGUF default of 32.
 */
export function buildGguf(metadata: Record<string, GgufValue>, tensors: readonly GgufTensor[]): Buffer {
  const alignMeta = metadata['general.alignment'];
  if (alignMeta && alignMeta.type !== 'u32') throw new Error('general.alignment must be a u32');
  const alignment = alignMeta?.type === 'u32' ? alignMeta.value : GGUF_DEFAULT_ALIGNMENT;
  if (!(alignment > 0) || alignment % 8 !== 0) throw new Error(`bad alignment ${alignment}`);

  const names = new Set<string>();
  for (const t of tensors) {
    if (names.has(t.name)) throw new Error(`duplicate tensor ${t.name}`);
    names.add(t.name);
    if (t.dims.length < 1 || t.dims.length > 4) throw new Error(`tensor ${t.name}: 1 to 4 dims`);
    const count = t.dims.reduce((a, b) => a * b, 1);
    if (count !== t.data.length) throw new Error(`tensor ${t.name}: dims hold ${count} values, data has ${t.data.length}`);
  }

  const out = new ByteSink();
  out.bytes(Buffer.from('GGUF', 'ascii'));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(Object.keys(metadata).length);
  for (const [key, value] of Object.entries(metadata)) {
    out.str(key);
    writeValue(out, value);
  }

  let offset = 0;
  for (const t of tensors) {
    out.str(t.name);
    out.u32(t.dims.length);
    for (const d of t.dims) out.u64(d);
    out.u32(GGML_TYPE_F32);
    out.u64(offset);
    offset += Math.ceil(t.data.byteLength / alignment) * alignment;
  }
  out.padTo(alignment);

  for (const t of tensors) {
    // A view of exactly this tensor's bytes (the array may sit inside a larger buffer); host byte order, which
    // is little-endian on every platform llama.cpp prebuilts ship for.
    out.bytes(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    out.padTo(alignment);
  }
  return out.concat();
}
