// Bytes → string for the plain-text kinds, refusing anything that is really binary.

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf16le = new TextDecoder('utf-16le', { fatal: true });
const utf16be = new TextDecoder('utf-16be', { fatal: true });

/**
 * The text in `data`, or undefined when it is not text: invalid UTF-8, a NUL byte, or more than 1% control
 * characters other than whitespace and escape. A UTF-16 byte-order mark is honoured (Windows tools still write it).
 */
export function decodeText(data: Buffer): string | undefined {
  let text: string;
  try {
    if (data[0] === 0xff && data[1] === 0xfe) text = utf16le.decode(data.subarray(2));
    else if (data[0] === 0xfe && data[1] === 0xff) text = utf16be.decode(data.subarray(2));
    else text = utf8.decode(data); // strips a UTF-8 BOM itself
  } catch {
    return undefined;
  }
  let controls = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return undefined;
    // \t \n \v \f \r and ESC (terminal colour codes in logs) are ordinary in text files.
    if ((c < 0x20 && !(c >= 0x09 && c <= 0x0d) && c !== 0x1b) || c === 0x7f) controls++;
  }
  return controls > text.length / 100 ? undefined : text;
}
