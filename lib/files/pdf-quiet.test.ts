// Reading a PDF's text writes nothing to stderr or stdout: pdf.js's warnings about the optional @napi-rs/canvas
// package (which only page rendering needs) are not the operator's problem. Checked in a fresh process each time,
// since pdf.js warns once, when its module loads: with the package as installed, and with it made unresolvable.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';

const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-pdf-quiet-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const toText = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'to-text.ts')).href;
const pdfFile = path.join(dir, 'a.pdf');
const script = path.join(dir, 'extract.ts');
fs.writeFileSync(
  script,
  `import fs from 'node:fs';
import { fileToText } from ${JSON.stringify(toText)};
const out = await fileToText({ data: fs.readFileSync(${JSON.stringify(pdfFile)}), filename: 'a.pdf', mimeType: 'application/pdf' });
if (!out.text.includes('QUOKKA')) process.exit(3);
`,
);
// A deployment where the optional package did not install: resolving it fails, as it would there.
const hideCanvas = path.join(dir, 'hide-canvas.mjs');
fs.writeFileSync(
  hideCanvas,
  `import { registerHooks } from 'node:module';
registerHooks({ resolve(specifier, context, next) {
  if (specifier === '@napi-rs/canvas') throw Object.assign(new Error("Cannot find module '@napi-rs/canvas'"), { code: 'MODULE_NOT_FOUND' });
  return next(specifier, context);
} });
`,
);

before(async () => {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  pdf.addPage().drawText('QUOKKA on page one', { x: 50, y: 700, font, size: 14 });
  fs.writeFileSync(pdfFile, await pdf.save());
});

const extract = (...nodeArgs: string[]) => run(process.execPath, [...nodeArgs, script]);

test('extracting a PDF prints nothing, @napi-rs/canvas as installed', async () => {
  const { stdout, stderr } = await extract();
  assert.equal(stderr, '');
  assert.equal(stdout, '');
});

test('extracting a PDF prints nothing where @napi-rs/canvas is missing', async () => {
  const { stdout, stderr } = await extract('--import', pathToFileURL(hideCanvas).href);
  assert.equal(stderr, '');
  assert.equal(stdout, '');
});
