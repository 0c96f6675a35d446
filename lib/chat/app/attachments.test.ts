// Attachments: the checks (type, size, count, content sniffing, names), what is stored, what the browser gets back
// (never a document's bytes), and files reaching the model through the service's own file handling.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Document, Packer, Paragraph } from 'docx';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { type Harness, startHarness } from '../../../e2e/support/harness.ts';
import { ApiError } from '../../api/errors.ts';
import { type Message, userConversations } from '../../conversations/conversations.ts';
import type { AppMessage, GenerationEvent, SendMessageResponse, UploadAttachment } from '../../wire.ts';
import { checkAttachments, MAX_FILE_BYTES } from './attachments.ts';
import { toAppMessage } from '../../conversations/message.ts';
import { chatRoutes } from '../app-routes.ts';
import { call, EventReader, PNG_1X1, testUser, type TestUser } from '../../../e2e/support/app-chat.ts';

const VISION = { id: 'vision-model', vision: true };
const PLAIN = { id: 'plain-model', vision: false };
const dataUrl = (type: string, bytes: Buffer | string) => `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;
const png: UploadAttachment = { name: 'dot.png', type: 'image/png', dataUrl: `data:image/png;base64,${PNG_1X1}` };
const txt = (name = 'notes.txt', text = 'Tide tables for March.'): UploadAttachment => ({ name, type: 'text/plain', dataUrl: dataUrl('text/plain', text) });

const docx = async (text: string) => Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph(text)] }] }));
async function pdf(text: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText(text, { x: 50, y: 700, font, size: 14 });
  return Buffer.from(await doc.save());
}

const code = (c: string) => (e: unknown) => e instanceof ApiError && e.code === c;

describe('checkAttachments', () => {
  test('accepts images and documents, storing canonical data: URLs', async () => {
    const { attachments, hasImages } = checkAttachments(
      [
        png,
        txt(),
        { name: 'plan.docx', type: '', dataUrl: dataUrl('application/octet-stream', await docx('hello')) },
        { name: 'readme.md', type: '', dataUrl: dataUrl('', '# Title') },
      ],
      VISION,
    );
    assert.equal(hasImages, true);
    assert.deepEqual(
      attachments.map((a) => [a.name, a.type, a.kind]),
      [
        ['dot.png', 'image/png', 'image'],
        ['notes.txt', 'text/plain', 'document'],
        ['plan.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'document'],
        ['readme.md', 'text/markdown', 'document'],
      ],
    );
    assert.equal(attachments[0].dataUrl, `data:image/png;base64,${PNG_1X1}`);
    assert.equal(attachments[0].size, Buffer.from(PNG_1X1, 'base64').length);
    assert.ok(attachments.every((a) => typeof a.id === 'string' && a.id.length > 10));
  });

  test('refuses what it cannot take, naming the file', async () => {
    assert.throws(
      () => checkAttachments([png], PLAIN),
      (e: unknown) => code('UNSUPPORTED_CONTENT')(e) && /plain-model/.test((e as Error).message),
    );
    assert.throws(
      () => checkAttachments([{ name: 'x.svg', type: 'image/svg+xml', dataUrl: dataUrl('image/svg+xml', '<svg/>') }], VISION),
      code('UNSUPPORTED_FILE'),
    );
    assert.throws(
      () => checkAttachments([{ name: 'a.zip', type: 'application/zip', dataUrl: dataUrl('application/zip', 'PK') }], VISION),
      code('UNSUPPORTED_FILE'),
    );
    assert.throws(() => checkAttachments([{ name: 'run.exe', type: '', dataUrl: dataUrl('', 'MZ') }], VISION), code('UNSUPPORTED_FILE'));
    // Contents that do not match the declared type.
    assert.throws(
      () => checkAttachments([{ name: 'fake.png', type: 'image/png', dataUrl: dataUrl('image/png', 'not a png at all') }], VISION),
      (e: unknown) => code('CORRUPTED_FILE')(e) && /fake\.png/.test((e as Error).message),
    );
    assert.throws(
      () => checkAttachments([{ name: 'fake.jpg', type: 'image/jpeg', dataUrl: `data:image/jpeg;base64,${PNG_1X1}` }], VISION),
      code('CORRUPTED_FILE'),
    );
    assert.throws(
      () => checkAttachments([{ name: 'fake.pdf', type: 'application/pdf', dataUrl: dataUrl('application/pdf', 'hello') }], VISION),
      code('CORRUPTED_FILE'),
    );
    const pdfBytes = await pdf('x');
    assert.throws(
      () =>
        checkAttachments(
          [
            {
              name: 'fake.docx',
              type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
              dataUrl: dataUrl('application/pdf', pdfBytes),
            },
          ],
          VISION,
        ),
      code('CORRUPTED_FILE'),
    );
    assert.throws(
      () => checkAttachments([{ name: 'bin.txt', type: 'text/plain', dataUrl: `data:text/plain;base64,${PNG_1X1}` }], VISION),
      code('CORRUPTED_FILE'),
    );
    assert.throws(() => checkAttachments([{ name: 'bad.txt', type: 'text/plain', dataUrl: 'data:text/plain;base64,@@@' }], VISION), code('CORRUPTED_FILE'));
    assert.throws(() => checkAttachments([{ name: 'empty.txt', type: 'text/plain', dataUrl: 'data:text/plain;base64,' }], VISION), code('CORRUPTED_FILE'));
    // Size and count.
    const big = Buffer.alloc(MAX_FILE_BYTES + 1, 0x61);
    assert.throws(
      () => checkAttachments([{ name: 'big.txt', type: 'text/plain', dataUrl: dataUrl('text/plain', big) }], VISION),
      (e: unknown) => code('FILE_TOO_LARGE')(e) && (e as ApiError).status === 400,
    );
    assert.throws(
      () =>
        checkAttachments(
          Array.from({ length: 6 }, (_, i) => txt(`n${i}.txt`)),
          VISION,
        ),
      code('INVALID_REQUEST'),
    );
    assert.equal(
      checkAttachments(
        Array.from({ length: 5 }, (_, i) => txt(`n${i}.txt`)),
        VISION,
      ).attachments.length,
      5,
    );
  });

  test('file names lose paths, markup brackets, control and bidi characters, and excess length', () => {
    const names = [
      txt('<img src=x onerror=alert(1)>.txt'),
      txt('../../etc/passwd.txt'),
      txt('C:\\Users\\me\\report.txt'),
      txt('invoice\u202Etxt.exe.txt'),
      txt('line\nbreak\u0000.txt'),
      txt(`${'a'.repeat(300)}.txt`),
    ].map((upload) => checkAttachments([upload], VISION).attachments[0].name);
    assert.equal(names[0], '(img src=x onerror=alert(1)).txt');
    assert.equal(names[1], 'passwd.txt');
    assert.equal(names[2], 'report.txt');
    assert.ok(!/[\u202A-\u202E\u2066-\u2069]/.test(names[3]));
    assert.ok(!/[\u0000-\u001f]/.test(names[4]));
    assert.ok(names[5].length <= 120 && names[5].endsWith('.txt'));
    assert.ok(names.every((n) => !/[<>/\\]/.test(n)));
  });

  test('the browser gets images as previews and documents without their bytes', () => {
    const { attachments } = checkAttachments([png, txt()], VISION);
    const m = {
      id: 'm',
      conversationId: 'c',
      parentId: null,
      role: 'user',
      content: 'hi',
      reasoning: null,
      attachments,
      citations: [],
      modelId: null,
      status: 'complete',
      usage: null,
      error: null,
      memories: [],
      createdAt: 1,
      updatedAt: 1,
    } satisfies Message;
    const app = toAppMessage(m);
    assert.equal(app.attachments[0].previewUrl, `data:image/png;base64,${PNG_1X1}`);
    assert.equal(app.attachments[1].previewUrl, undefined);
    assert.deepEqual(Object.keys(app.attachments[1]).sort(), ['id', 'kind', 'name', 'size', 'type']);
    assert.ok(!JSON.stringify(app).includes(Buffer.from('Tide tables').toString('base64')));
  });
});

describe('attachments through the chat routes', () => {
  let h: Harness;
  let chat: ReturnType<typeof chatRoutes>;
  let alice: TestUser;

  before(async () => {
    h = await startHarness();
    chat = chatRoutes({ svc: h.svc, app: h.svc.config.app });
    alice = await testUser(h.svc.store);
  });
  after(async () => {
    await chat.close();
    await h.close();
  });

  async function send(conversationId: string, body: Record<string, unknown>) {
    const res = await call(chat.sendMessage, 'POST', `/conversations/${conversationId}/messages`, alice, {
      body: { parentId: null, ...body },
      params: { id: conversationId },
    });
    const text = await res.text();
    return { res, text, json: JSON.parse(text) as SendMessageResponse & { code?: string; error?: string } };
  }
  async function finish(id: string): Promise<AppMessage> {
    const events = await new EventReader(await call(chat.streamMessage, 'GET', `/messages/${id}/stream`, alice, { params: { id } })).rest();
    return (events.at(-1) as Extract<GenerationEvent, { type: 'done' }>).message;
  }

  test('documents reach the model as text; the response never carries their bytes', async () => {
    const ops = userConversations(h.svc.store, alice.user.id);
    const c = await ops.create();
    const docxBytes = await docx('QUOKKA quarterly plan');
    const pdfBytes = await pdf('PANGOLIN report');
    const uploads = [
      txt('notes.txt', 'NARWHAL tide tables'),
      { name: 'table.csv', type: 'text/csv', dataUrl: dataUrl('text/csv', 'name,count\nAXOLOTL,3\n') },
      {
        name: 'plan.docx',
        type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        dataUrl: dataUrl('application/octet-stream', docxBytes),
      },
      { name: 'report.pdf', type: 'application/pdf', dataUrl: dataUrl('application/pdf', pdfBytes) },
    ];
    const { res, text, json } = await send(c.id, { content: 'Summarise these [[echo_request]]', attachments: uploads });
    assert.equal(res.status, 201, text);
    assert.ok(!text.includes('dataUrl') && !text.includes('base64'), 'no file bytes in the response');
    assert.deepEqual(
      json.user.attachments.map((a) => [a.name, a.kind, a.previewUrl]),
      [
        ['notes.txt', 'document', undefined],
        ['table.csv', 'document', undefined],
        ['plan.docx', 'document', undefined],
        ['report.pdf', 'document', undefined],
      ],
    );
    const answer = await finish(json.assistant.id);
    assert.equal(answer.status, 'complete', JSON.stringify(answer.error));
    for (const word of ['NARWHAL', 'AXOLOTL', 'QUOKKA', 'PANGOLIN', '[File: plan.docx (docx)]']) assert.ok(answer.content.includes(word), word);

    // Regenerate rebuilds the same prompt from the stored files.
    const regen = await call(chat.regenerate, 'POST', `/messages/${json.assistant.id}/regenerate`, alice, { params: { id: json.assistant.id } });
    const { assistant } = (await regen.json()) as { assistant: AppMessage };
    const again = await finish(assistant.id);
    for (const word of ['NARWHAL', 'QUOKKA', 'PANGOLIN']) assert.ok(again.content.includes(word), word);
  });

  test("an edited message keeps the original files (attachmentsFrom); another chat's message is 404", async () => {
    const ops = userConversations(h.svc.store, alice.user.id);
    const c = await ops.create();
    const first = await send(c.id, { content: 'Read this [[echo_request]]', attachments: [txt('tides.txt', 'OCELOT tide tables')] });
    assert.equal(first.res.status, 201, first.text);
    await finish(first.json.assistant.id);
    const edited = await send(c.id, { content: 'Read this again, edited [[echo_request]]', attachmentsFrom: first.json.user.id });
    assert.equal(edited.res.status, 201, edited.text);
    assert.deepEqual(
      edited.json.user.attachments.map((a) => a.name),
      ['tides.txt'],
    );
    assert.notEqual(edited.json.user.attachments[0].id, first.json.user.attachments[0].id);
    const answer = await finish(edited.json.assistant.id);
    assert.ok(answer.content.includes('OCELOT'), 'the kept file reached the model');
    assert.ok(answer.content.includes('edited'), 'with the new text');

    const other = await ops.create();
    const stray = await send(other.id, { content: 'x', attachmentsFrom: first.json.user.id });
    assert.equal(stray.res.status, 404, stray.text);
    const notUser = await send(c.id, { content: 'x', attachmentsFrom: first.json.assistant.id });
    assert.equal(notUser.res.status, 404, notUser.text);
  });

  test('an image goes to a vision model as an image; a non-vision model refuses it and stores nothing', async () => {
    const ops = userConversations(h.svc.store, alice.user.id);
    const c = await ops.create({ modelId: 'vision-model' });
    const { res, json } = await send(c.id, { content: 'What is this?', attachments: [png] });
    assert.equal(res.status, 201);
    assert.equal(json.user.attachments[0].previewUrl, png.dataUrl);
    await finish(json.assistant.id);
    const sent = h.engine.requests.at(-1)?.body.messages.at(-1);
    assert.ok(
      Array.isArray(sent.content) &&
        sent.content.some((p: { type: string; image_url?: { url: string } }) => p.type === 'image_url' && p.image_url?.url === png.dataUrl),
    );

    // Switching this chat to a model without vision: its history has an image, so the turn is refused.
    const next = await send(c.id, { parentId: json.assistant.id, content: 'and now?', modelId: 'plain-model' });
    assert.equal(next.res.status, 400);
    assert.equal(next.json.code, 'UNSUPPORTED_CONTENT');

    const d = await ops.create({ modelId: 'plain-model' });
    const refused = await send(d.id, { content: 'What is this?', attachments: [png] });
    assert.equal(refused.res.status, 400);
    assert.equal(refused.json.code, 'UNSUPPORTED_CONTENT');
    assert.match(refused.json.error ?? '', /plain-model/);
    assert.equal((await ops.get(d.id)).messages.length, 0);
  });

  test('bad files are refused with 400 before anything is stored', async () => {
    const ops = userConversations(h.svc.store, alice.user.id);
    const c = await ops.create();
    const bad: [UploadAttachment[], string][] = [
      [[{ name: 'big.txt', type: 'text/plain', dataUrl: dataUrl('text/plain', Buffer.alloc(MAX_FILE_BYTES + 10, 0x62)) }], 'FILE_TOO_LARGE'],
      [[{ name: 'tool.exe', type: 'application/x-msdownload', dataUrl: dataUrl('application/x-msdownload', 'MZ') }], 'UNSUPPORTED_FILE'],
      [Array.from({ length: 6 }, (_, i) => txt(`f${i}.txt`)), 'INVALID_REQUEST'],
    ];
    for (const [attachments, expected] of bad) {
      const { res, json } = await send(c.id, { content: 'see file', attachments });
      assert.equal(res.status, 400, expected);
      assert.equal(json.code, expected);
    }
    assert.equal((await ops.get(c.id)).messages.length, 0);
    const v = await ops.create({ modelId: 'vision-model' });
    const fake = await send(v.id, {
      content: 'see',
      attachments: [{ name: 'cat.png', type: 'image/png', dataUrl: dataUrl('image/png', '<script>alert(1)</script>') }],
    });
    assert.equal(fake.res.status, 400);
    assert.equal(fake.json.code, 'CORRUPTED_FILE');
    assert.equal((await ops.get(v.id)).messages.length, 0);
    // An HTML-looking name comes back as inert text: no angle brackets, no path.
    const { json } = await send(c.id, { content: '', attachments: [txt('"><img src=x onerror=alert(1)>.txt')] });
    assert.equal(json.user.attachments[0].name, '")(img src=x onerror=alert(1)).txt');
    assert.equal(json.conversation.title, '")(img src=x onerror=alert(1)).txt', 'a file-only first message is titled by its file');
  });
});

test('a declared type that is an Object.prototype member name is an unsupported type (400), not a crash', () => {
  for (const t of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
    assert.throws(() => checkAttachments([{ name: 'x.bin', type: t, dataUrl: `data:${t};base64,aGVsbG8=` }], PLAIN), code('UNSUPPORTED_FILE'), t);
  }
});
