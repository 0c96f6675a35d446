import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Document, Packer, Paragraph } from 'docx';
import { detectKind } from './detect-kind.ts';
import { listZipEntries } from './zip-entries.ts';

describe('detectKind', () => {
  it('prefers magic bytes, then mime type, then extension', () => {
    assert.deepEqual(detectKind(Buffer.from('%PDF-1.4'), 'text/plain', 'a.txt'), { kind: 'pdf', from: 'content' });
    assert.deepEqual(detectKind(Buffer.from('a,b'), 'text/csv', 'a.md'), { kind: 'csv', from: 'mime' });
    assert.deepEqual(detectKind(Buffer.from('a,b'), 'application/octet-stream', 'a.MD'), { kind: 'md', from: 'extension' });
    assert.deepEqual(detectKind(Buffer.from('a,b'), 'text/csv; charset=utf-8', undefined), { kind: 'csv', from: 'mime' });
    assert.deepEqual(detectKind(Buffer.from('a'), undefined, undefined), { kind: undefined, from: 'none' });
  });

  it('finds a PDF header after leading junk within the first KiB', () => {
    assert.equal(detectKind(Buffer.concat([Buffer.alloc(100, 0x20), Buffer.from('%PDF-1.7')]), undefined, undefined).kind, 'pdf');
  });

  it('tells OOXML kinds apart by their entries, even when the archive is cut short', async () => {
    const docx = await Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('x')] }] }));
    assert.deepEqual(detectKind(docx, undefined, 'x.pptx'), { kind: 'docx', from: 'content' });

    const whole = listZipEntries(docx);
    assert.equal(whole.complete, true);
    assert.ok(whole.names.includes('word/document.xml'));

    const cut = docx.subarray(0, docx.indexOf(Buffer.from('word/')) + 40);
    const partial = listZipEntries(cut);
    assert.equal(partial.complete, false);
    assert.ok(partial.names.some((n) => n.startsWith('word/')));
    assert.equal(detectKind(cut, undefined, undefined).kind, 'docx');
  });
});
