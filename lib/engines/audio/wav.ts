// RIFF WAV, 16-bit mono: what flite writes and what the transcription decoder reads. Parsing walks the chunks (an
// encoder may add LIST or fact chunks before `data`); writing gives exact sizes, or the streaming form whose sizes
// say "unknown" (0xFFFFFFFF), which players read to the end.

export interface Pcm {
  /** Signed 16-bit little-endian samples, one channel. */
  samples: Buffer;
  sampleRate: number;
}

const UNKNOWN = 0xffffffff;

/** The PCM of a 16-bit mono WAV; throws on anything else. */
export function parseWav(buf: Buffer): Pcm {
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a RIFF WAVE file');
  let at = 12;
  let sampleRate = 0;
  let bits = 0;
  let channels = 0;
  while (at + 8 <= buf.length) {
    const id = buf.toString('ascii', at, at + 4);
    const size = buf.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      channels = buf.readUInt16LE(body + 2);
      sampleRate = buf.readUInt32LE(body + 4);
      bits = buf.readUInt16LE(body + 14);
    } else if (id === 'data') {
      if (bits !== 16 || channels !== 1) throw new Error(`expected 16-bit mono WAV, got ${bits}-bit ${channels}-channel`);
      // A streamed WAV says "unknown" (or too much): the data runs to the end of the file.
      const end = size === UNKNOWN || body + size > buf.length ? buf.length : body + size;
      return { samples: buf.subarray(body, end - ((end - body) % 2)), sampleRate };
    }
    at = body + size + (size % 2);
  }
  throw new Error('WAV file without a data chunk');
}

/** A 44-byte header for 16-bit mono PCM; without a byte count, the streaming form (sizes unknown). */
export function wavHeader(sampleRate: number, dataBytes?: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(dataBytes === undefined ? UNKNOWN : 36 + dataBytes, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(dataBytes === undefined ? UNKNOWN : dataBytes, 40);
  return h;
}

/** Seconds of 16-bit mono PCM. */
export const pcmSeconds = (bytes: number, sampleRate: number): number => bytes / 2 / sampleRate;

/** Linear-interpolation resampling of 16-bit mono PCM (voices at 8 kHz joined to a 16 kHz stream). */
export function resample(samples: Buffer, from: number, to: number): Buffer {
  if (from === to) return samples;
  const n = samples.length >> 1;
  const outLength = Math.floor((n * to) / from);
  const out = Buffer.alloc(outLength * 2);
  for (let i = 0; i < outLength; i++) {
    const pos = (i * from) / to;
    const j = Math.floor(pos);
    const a = samples.readInt16LE(Math.min(j, n - 1) * 2);
    const b = samples.readInt16LE(Math.min(j + 1, n - 1) * 2);
    out.writeInt16LE(Math.round(a + (b - a) * (pos - j)), i * 2);
  }
  return out;
}
