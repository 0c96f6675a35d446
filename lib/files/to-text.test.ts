import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { Document, Packer, Paragraph } from 'docx';
import ExcelJS from 'exceljs';
import { OfficeParser } from 'officeparser';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import PptxGenJS from 'pptxgenjs';
import { ApiError } from '../api/errors.ts';
import type { ErrorCode } from '../api/errors.ts';
import { DEFAULT_FILE_LIMITS, SUPPORTED_FILE_TYPES, fileToText } from './to-text.ts';

async function makeDocx(...lines: string[]): Promise<Buffer> {
  return Packer.toBuffer(new Document({ sections: [{ children: lines.map((l) => new Paragraph(l)) }] }));
}

async function makeXlsx(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Animals');
  sheet.addRow(['name', 'count']);
  sheet.addRow(['QUOKKACELL', 42]);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

async function makePptx(): Promise<Buffer> {
  const deck = new PptxGenJS();
  deck.addSlide().addText('NARWHALSLIDE opening', { x: 1, y: 1, w: 8, h: 1 });
  deck.addSlide().addText('Second slide WALRUSNOTE', { x: 1, y: 1, w: 8, h: 1 });
  return (await deck.write({ outputType: 'nodebuffer' })) as Buffer;
}

async function makePdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  pdf.addPage().drawText('PANGOLIN appears on page one', { x: 50, y: 700, font, size: 14 });
  pdf.addPage().drawText('AXOLOTL appears on page two', { x: 50, y: 700, font, size: 14 });
  return Buffer.from(await pdf.save());
}

/** officeparser writes ODT, which gives an OpenDocument fixture without another dev dependency. */
async function makeOdt(): Promise<Buffer> {
  const ast = await OfficeParser.parseOffice(await makeDocx('OCELOTODT text'), { ocr: false });
  return Buffer.from((await ast.to('odt')).value);
}

async function rejectsWith(promise: Promise<unknown>, code: ErrorCode, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected an ApiError, got ${String(e)}`);
    assert.equal(e.code, code);
    assert.match(e.message, pattern);
    return true;
  });
}

const text = (s: string) => Buffer.from(s, 'utf8');

describe('fileToText: documents', () => {
  let docx: Buffer;
  before(async () => {
    docx = await makeDocx('Hello ZEBRAWORD', 'Second paragraph GIRAFFE');
  });

  it('reads docx', async () => {
    const out = await fileToText({ data: docx, filename: 'report.docx' });
    assert.equal(out.kind, 'docx');
    assert.match(out.text, /Hello ZEBRAWORD/);
    assert.match(out.text, /Second paragraph GIRAFFE/);
  });

  it('reads xlsx', async () => {
    const out = await fileToText({ data: await makeXlsx() });
    assert.equal(out.kind, 'xlsx');
    assert.match(out.text, /QUOKKACELL/);
    assert.match(out.text, /42/);
  });

  it('reads pptx', async () => {
    const out = await fileToText({ data: await makePptx() });
    assert.equal(out.kind, 'pptx');
    assert.match(out.text, /NARWHALSLIDE/);
    assert.match(out.text, /WALRUSNOTE/);
  });

  it('reads pdf', async () => {
    const out = await fileToText({ data: await makePdf(), filename: 'scan.pdf', mimeType: 'application/pdf' });
    assert.equal(out.kind, 'pdf');
    assert.match(out.text, /PANGOLIN appears on page one/);
    assert.match(out.text, /AXOLOTL appears on page two/);
  });

  it('reads odt', async () => {
    const out = await fileToText({ data: await makeOdt() });
    assert.equal(out.kind, 'odt');
    assert.match(out.text, /OCELOTODT/);
  });

  it('trusts the bytes over a wrong name and mime type', async () => {
    const out = await fileToText({ data: docx, filename: 'data.xlsx', mimeType: 'application/pdf' });
    assert.equal(out.kind, 'docx');
    assert.match(out.text, /ZEBRAWORD/);
  });

  it('rejects a truncated docx as corrupted, naming the file', async () => {
    const truncated = docx.subarray(0, Math.floor(docx.length / 2));
    await rejectsWith(fileToText({ data: truncated, filename: 'report.docx' }), 'CORRUPTED_FILE', /"report\.docx".*damaged/);
    await rejectsWith(fileToText({ data: truncated }), 'CORRUPTED_FILE', /damaged/);
  });

  it('rejects a file claiming to be a PDF that is not one as corrupted', async () => {
    await rejectsWith(
      fileToText({ data: text('just some words'), filename: 'paper.pdf', mimeType: 'application/pdf' }),
      'CORRUPTED_FILE',
      /"paper\.pdf" could not be read as a PDF/,
    );
    await rejectsWith(fileToText({ data: text('%PDF-1.7\ngarbage') }), 'CORRUPTED_FILE', /could not be read as a PDF/);
  });

  it('rejects a zip that is no document, and legacy/encrypted Office files, as unsupported', async () => {
    // A docx whose entries have been renamed out of word/: a valid zip holding nothing we read.
    const renamed = Buffer.from(docx.toString('latin1').replaceAll('word/', 'blob/'), 'latin1');
    await rejectsWith(fileToText({ data: renamed, filename: 'archive.zip' }), 'UNSUPPORTED_FILE', /ZIP archives.*Supported types: pdf, docx/);
    const ole2 = Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), randomBytes(512)]);
    await rejectsWith(fileToText({ data: ole2, filename: 'old.doc' }), 'UNSUPPORTED_FILE', /legacy Office files/);
  });
});

describe('fileToText: text kinds', () => {
  it('passes txt, md and csv through', async () => {
    assert.deepEqual(await fileToText({ data: text('plain words\n'), filename: 'a.txt' }), { kind: 'txt', text: 'plain words\n' });
    assert.deepEqual(await fileToText({ data: text('# Title\n\n- item'), mimeType: 'text/markdown' }), {
      kind: 'md',
      text: '# Title\n\n- item',
    });
    assert.deepEqual(await fileToText({ data: text('a,b\r\n1,2\r\n'), filename: 'data.csv' }), { kind: 'csv', text: 'a,b\n1,2\n' });
  });

  it('reads source code and unknown text as txt', async () => {
    assert.equal((await fileToText({ data: text('export const x = 1;'), filename: 'x.ts' })).kind, 'txt');
    assert.equal((await fileToText({ data: text('body{}'), mimeType: 'text/x-anything' })).kind, 'txt');
    assert.deepEqual(await fileToText({ data: text('all:\n\tmake it'), filename: 'Makefile' }), { kind: 'txt', text: 'all:\n\tmake it' });
  });

  it('strips a UTF-8 byte-order mark and reads UTF-16 with one', async () => {
    assert.equal((await fileToText({ data: Buffer.from('\ufeffhello', 'utf8'), filename: 'a.txt' })).text, 'hello');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo', 'utf16le')]);
    assert.equal((await fileToText({ data: utf16, filename: 'a.txt' })).text, 'héllo');
  });

  it('pretty-prints JSON without rounding numbers', async () => {
    const out = await fileToText({ data: text('{"id":12345678901234567890,"n":[1.50,2]}'), filename: 'x.json' });
    assert.equal(out.kind, 'json');
    assert.equal(out.text, '{\n  "id": 12345678901234567890,\n  "n": [\n    1.50,\n    2\n  ]\n}');
  });

  it('rejects invalid JSON as corrupted', async () => {
    await rejectsWith(fileToText({ data: text('{"a":'), mimeType: 'application/json' }), 'CORRUPTED_FILE', /not valid JSON/);
  });

  it('rejects binary data as unsupported, listing the supported types', async () => {
    const noise = randomBytes(4096);
    noise[0] = 0x00; // never a valid text file, whatever else the random bytes say
    await rejectsWith(fileToText({ data: noise }), 'UNSUPPORTED_FILE', /Supported types: pdf, docx, pptx, xlsx/);
    await rejectsWith(fileToText({ data: noise, filename: 'notes.txt' }), 'UNSUPPORTED_FILE', /"notes\.txt" is not UTF-8 text/);
    await rejectsWith(fileToText({ data: Buffer.from([0xc3, 0x28]), filename: 'a.md' }), 'UNSUPPORTED_FILE', /not UTF-8/);
    await rejectsWith(fileToText({ data: text('a\u0001\u0002\u0003b'), filename: 'a.txt' }), 'UNSUPPORTED_FILE', /not UTF-8/);
  });
});

describe('fileToText: limits', () => {
  it('rejects files over maxBytes, naming the limit in MB', async () => {
    const big = Buffer.alloc(DEFAULT_FILE_LIMITS.maxBytes + 1, 'a');
    await rejectsWith(fileToText({ data: big, filename: 'big.txt' }), 'FILE_TOO_LARGE', /"big\.txt" is 10\.1 MB; the limit is 10 MB/);
    await rejectsWith(fileToText({ data: text('12345') }, { maxBytes: 4 }), 'FILE_TOO_LARGE', /the limit is 4 bytes/);
  });

  it('truncates text over maxChars and says so', async () => {
    const out = await fileToText({ data: text('x'.repeat(250)), filename: 'a.txt' }, { maxChars: 100 });
    assert.ok(out.text.startsWith(`${'x'.repeat(100)}\n\n`));
    assert.match(out.text, /\[Truncated: showing the first 100 of 250 characters\]$/);
  });

  it('does not split a surrogate pair when truncating', async () => {
    const out = await fileToText({ data: text('ab😀cd'), filename: 'a.txt' }, { maxChars: 3 });
    assert.ok(out.text.startsWith('ab\n'));
  });

  it('applies maxChars to extracted document text too', async () => {
    const out = await fileToText({ data: await makeDocx('y'.repeat(5000)) }, { maxChars: 1000 });
    assert.match(out.text, /^y{1000}\n\n\[Truncated: showing the first 1,000 of/);
  });
});

describe('SUPPORTED_FILE_TYPES', () => {
  it('gives every kind at least one extension and mime type, none claimed twice', () => {
    const extensions = SUPPORTED_FILE_TYPES.flatMap((t) => [...t.extensions]);
    const mimes = SUPPORTED_FILE_TYPES.flatMap((t) => [...t.mimeTypes]);
    assert.equal(new Set(extensions).size, extensions.length);
    assert.equal(new Set(mimes).size, mimes.length);
    for (const t of SUPPORTED_FILE_TYPES) assert.ok(t.extensions.length > 0 && t.mimeTypes.length > 0, t.kind);
  });
});
