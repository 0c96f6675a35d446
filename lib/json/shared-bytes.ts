// A large body of known length gathered chunk by chunk, as it arrives, into shared memory: no concatenation at the end
// (one more copy of megabytes on the loop), and the JSON thread reads it in place.

/** What it reads from: a request or an upstream's response body (node streams). */
export interface ByteSource {
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  once(event: 'end', listener: () => void): unknown;
  once(event: 'error', listener: (e: Error) => void): unknown;
}

/**
 * The bytes of `source`, which says it sends `length`; more than that fails (a framing the HTTP parser would not
 * pass, checked all the same), fewer are what arrived (the caller's stream errs if they were cut off).
 */
export function readShared(source: ByteSource, length: number): Promise<Buffer> {
  const body = Buffer.from(new SharedArrayBuffer(length));
  let size = 0;
  return new Promise((resolve, reject) => {
    source.on('data', (chunk: Buffer) => {
      if (size + chunk.length > length) {
        reject(new Error(`the body is longer than the ${length} bytes its Content-Length says`));
        size = length + 1;
        return;
      }
      size += chunk.copy(body, size);
    });
    source.once('end', () => (size > length ? undefined : resolve(size === length ? body : body.subarray(0, size))));
    source.once('error', reject);
  });
}

/**
 * All of `source`, of a length not said beforehand (a chunked answer): joined in plain memory when short, into
 * shared memory from `shareFrom` bytes on, for the JSON thread to read in place.
 */
export function readAll(source: ByteSource, shareFrom: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  return new Promise((resolve, reject) => {
    source.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
    });
    source.once('end', () => {
      if (size < shareFrom) return resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
      const body = Buffer.from(new SharedArrayBuffer(size));
      let at = 0;
      for (const c of chunks) at += c.copy(body, at);
      resolve(body);
    });
    source.once('error', reject);
  });
}
