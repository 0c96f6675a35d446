// RFC 4180 CSV: a header row, then one record per row, every line ended by CRLF. A field is quoted when it holds a
// comma, a double quote, CR or LF, and quotes inside it are doubled.
//
// Spreadsheet formula injection: a spreadsheet opening the file runs a cell that starts with `=`, `+`, `-` or `@`
// (and, in some applications, a leading tab or CR) as a formula, so a model id or key description written by a user
// could execute there. Such TEXT fields are written with a leading `'`, which spreadsheets show as a literal text
// marker and never evaluate. Numbers are written as numbers (a negative number stays `-1`), so only strings change.

export type CsvValue = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One field: empty for null/undefined, numbers and booleans as written by JS, text neutralised and quoted as needed. */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`CSV numbers must be finite, got ${value}`);
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A whole document: the header row, then the records (each as long as the header). */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[]): string {
  let out = `${header.map(csvField).join(',')}\r\n`;
  for (const row of rows) {
    if (row.length !== header.length) throw new RangeError(`CSV record has ${row.length} fields, the header ${header.length}`);
    out += `${row.map(csvField).join(',')}\r\n`;
  }
  return out;
}
