// Just enough ZIP reading to tell OOXML and OpenDocument files apart by the names inside them, without inflating
// anything. Reads the central directory when the archive is whole, else scans for local headers (a truncated
// upload still says what it was meant to be).

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIR = 0x06054b50;
const MAX_ENTRIES = 10_000;

export interface ZipListing {
  /** Entry names, in archive order. */
  names: string[];
  /** False when no valid central directory was found (a truncated or damaged archive). */
  complete: boolean;
  /** The contents of an OpenDocument `mimetype` entry, which the format stores uncompressed. */
  odfMimeType: string | undefined;
}

export const isZip = (data: Buffer): boolean => data.length >= 4 && data.readUInt32LE(0) === LOCAL_HEADER;

export function listZipEntries(data: Buffer): ZipListing {
  const central = readCentralDirectory(data);
  const entries = central ?? scanLocalHeaders(data);
  const mimetypeEntry = entries.find((e) => e.name === 'mimetype');
  return {
    names: entries.map((e) => e.name),
    complete: central !== undefined,
    odfMimeType: mimetypeEntry ? readStoredEntry(data, mimetypeEntry.offset) : undefined,
  };
}

interface Entry {
  name: string;
  /** Offset of the entry's local header. */
  offset: number;
}

function readCentralDirectory(data: Buffer): Entry[] | undefined {
  const eocd = findEndOfCentralDirectory(data);
  if (eocd < 0) return undefined;
  const count = data.readUInt16LE(eocd + 10);
  let pos = data.readUInt32LE(eocd + 16);
  const entries: Entry[] = [];
  for (let i = 0; i < count && i < MAX_ENTRIES; i++) {
    if (pos + 46 > data.length || data.readUInt32LE(pos) !== CENTRAL_HEADER) return undefined;
    const nameLength = data.readUInt16LE(pos + 28);
    const extraLength = data.readUInt16LE(pos + 30);
    const commentLength = data.readUInt16LE(pos + 32);
    if (pos + 46 + nameLength > data.length) return undefined;
    entries.push({ name: data.toString('utf8', pos + 46, pos + 46 + nameLength), offset: data.readUInt32LE(pos + 42) });
    pos += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function findEndOfCentralDirectory(data: Buffer): number {
  // The record is 22 bytes plus a comment of at most 65535 bytes, at the very end.
  const lowest = Math.max(0, data.length - 22 - 0xffff);
  for (let pos = data.length - 22; pos >= lowest; pos--) {
    if (data.readUInt32LE(pos) === END_OF_CENTRAL_DIR) return pos;
  }
  return -1;
}

function scanLocalHeaders(data: Buffer): Entry[] {
  const signature = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
  const entries: Entry[] = [];
  for (let pos = data.indexOf(signature); pos >= 0 && entries.length < MAX_ENTRIES; pos = data.indexOf(signature, pos + 4)) {
    if (pos + 30 > data.length) break;
    const nameLength = data.readUInt16LE(pos + 26);
    if (pos + 30 + nameLength > data.length) break;
    entries.push({ name: data.toString('utf8', pos + 30, pos + 30 + nameLength), offset: pos });
  }
  return entries;
}

/** A small entry's bytes as text, if stored without compression (as ODF requires of `mimetype`). */
function readStoredEntry(data: Buffer, offset: number): string | undefined {
  if (offset + 30 > data.length || data.readUInt32LE(offset) !== LOCAL_HEADER) return undefined;
  if (data.readUInt16LE(offset + 8) !== 0) return undefined;
  const size = data.readUInt32LE(offset + 18);
  const start = offset + 30 + data.readUInt16LE(offset + 26) + data.readUInt16LE(offset + 28);
  if (size > 200 || start + size > data.length) return undefined;
  return data.toString('latin1', start, start + size).trim();
}
