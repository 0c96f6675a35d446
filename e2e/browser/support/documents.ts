// Real files of every type the composer accepts, made in the test (as the API tests make theirs), each carrying
// one marker word that must come back from the model to prove the file's text reached it.
import zlib from 'node:zlib';
import { Document, Packer, Paragraph } from 'docx';
import ExcelJS from 'exceljs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import PptxGenJS from 'pptxgenjs';

export interface TestFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
  /** A word only this file contains (documents), or undefined for images. */
  marker?: string;
}

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

async function pdf(text: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText(text, { x: 50, y: 700, font, size: 14 });
  return Buffer.from(await doc.save());
}

async function docx(text: string): Promise<Buffer> {
  return Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph(text)] }] }));
}

async function pptx(text: string): Promise<Buffer> {
  const deck = new PptxGenJS();
  deck.addSlide().addText(text, { x: 1, y: 1, w: 8, h: 1 });
  return (await deck.write({ outputType: 'nodebuffer' })) as Buffer;
}

async function xlsx(marker: string): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Stock');
  sheet.addRow(['item', 'count']);
  sheet.addRow([marker, 42]);
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** A 2×2 PNG (red, green / blue, white), encoded by hand so no image library is needed. */
export function tinyPng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const header = Buffer.from([0, 0, 0, 2, 0, 0, 0, 2, 8, 2, 0, 0, 0]); // 2×2, 8-bit RGB
  const rows = Buffer.from([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255]); // filter byte + 2 pixels per row
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

/** One document of each type: PDF, DOCX, PPTX, XLSX, TXT, MD, CSV. */
export async function documents(): Promise<TestFile[]> {
  return [
    { name: 'report.pdf', mimeType: 'application/pdf', buffer: await pdf('PANGOLIN appears in the PDF'), marker: 'PANGOLIN' },
    { name: 'memo.docx', mimeType: DOCX, buffer: await docx('ZEBRAWORD appears in the memo'), marker: 'ZEBRAWORD' },
    { name: 'deck.pptx', mimeType: PPTX, buffer: await pptx('NARWHALSLIDE opening slide'), marker: 'NARWHALSLIDE' },
    { name: 'stock.xlsx', mimeType: XLSX, buffer: await xlsx('QUOKKACELL'), marker: 'QUOKKACELL' },
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('Plain notes mention OCELOTTEXT once.'), marker: 'OCELOTTEXT' },
    // Browsers often report .md and .csv with no type at all: the composer works it out from the extension.
    { name: 'readme.md', mimeType: '', buffer: Buffer.from('# Readme\n\nThe MARKDOWNMOLE section.'), marker: 'MARKDOWNMOLE' },
    { name: 'cities.csv', mimeType: '', buffer: Buffer.from('city,animal\nOslo,CSVCAPYBARA\n'), marker: 'CSVCAPYBARA' },
  ];
}
