// Which kind of file a buffer holds. The bytes are trusted over what the client says: magic bytes first, then the
// mime type, then the file name's extension. A client label is only a claim; the parser settles whether it holds.

import { kindFromFilename, kindFromMimeType } from './file-types.ts';
import type { FileKind } from './file-types.ts';
import { isZip, listZipEntries } from './zip-entries.ts';

export type Detection =
  | { kind: FileKind; from: 'content' | 'mime' | 'extension' }
  /** Nothing names a kind; the caller decides from the bytes (text or not). */
  | { kind: undefined; from: 'none' }
  /** Recognisably a format we do not read; `reason` says which. */
  | { kind: undefined; from: 'unsupported'; reason: string }
  /** A ZIP too damaged to list, with nothing else naming a kind. */
  | { kind: undefined; from: 'damaged-zip' };

const PDF_MAGIC = Buffer.from('%PDF-');
const OLE2_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

export function detectKind(data: Buffer, mimeType: string | undefined, filename: string | undefined): Detection {
  const claimed = claimedKind(mimeType, filename);

  // PDF readers accept the header anywhere in the first KiB, so junk before it does not hide a PDF.
  const pdfAt = data.subarray(0, 1024).indexOf(PDF_MAGIC);
  if (pdfAt >= 0) return { kind: 'pdf', from: 'content' };

  if (isZip(data)) {
    const listing = listZipEntries(data);
    const fromEntries = kindFromZipEntries(listing.names, listing.odfMimeType);
    if (fromEntries) return { kind: fromEntries, from: 'content' };
    if (claimed) return claimed;
    if (!listing.complete) return { kind: undefined, from: 'damaged-zip' };
    return { kind: undefined, from: 'unsupported', reason: 'ZIP archives are not supported' };
  }

  // Legacy .doc/.xls/.ppt, and password-protected OOXML, which is wrapped in the same container.
  if (data.subarray(0, 8).equals(OLE2_MAGIC)) {
    return {
      kind: undefined,
      from: 'unsupported',
      reason:
        'legacy Office files (.doc, .xls, .ppt) and password-protected documents are not supported; ' + 'save it as .docx, .xlsx or .pptx without a password',
    };
  }

  return claimed ?? { kind: undefined, from: 'none' };
}

function claimedKind(mimeType: string | undefined, filename: string | undefined): Detection | undefined {
  const fromMime = kindFromMimeType(mimeType);
  if (fromMime) return { kind: fromMime, from: 'mime' };
  const fromName = kindFromFilename(filename);
  if (fromName) return { kind: fromName, from: 'extension' };
  return undefined;
}

function kindFromZipEntries(names: string[], odfMimeType: string | undefined): FileKind | undefined {
  if (names.some((n) => n.startsWith('word/'))) return 'docx';
  if (names.some((n) => n.startsWith('xl/'))) return 'xlsx';
  if (names.some((n) => n.startsWith('ppt/'))) return 'pptx';
  // ODF templates (…-template) read the same as the documents they make.
  const odf = kindFromMimeType(odfMimeType?.replace(/-template$/, ''));
  return odf === 'odt' || odf === 'ods' || odf === 'odp' ? odf : undefined;
}
