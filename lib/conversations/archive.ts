// "Export all chats": one zip of every conversation of a user, streamed as it is made. Each chat is a JSON file in
// the single-chat export's format with every branch (export.ts#exportObject; the importer reads it back), and a
// Markdown file of the branch the chat opens on (its newest). Chats are read and compressed a few at a time, each when the reader asks for more (the stream's pull), so a history of thousands of chats neither sits in
// memory at once nor holds the event loop: fflate writes the zip's headers, node:zlib deflates each file on its
// thread pool (fflate's own deflate took 5-10 ms a chat on the event loop, Node's native one a few hundred µs).
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Zip, type ZipInputFile } from 'fflate';
import type { Store } from '../db/store.ts';
import { fileStem } from './app-download.ts';
import { userConversations } from './conversations.ts';
import { exportMarkdown, exportObject } from './export.ts';
import { pathTo } from './tree.ts';

/** The archive's top folder; the importer reads every `.json` file in it (chats/<name>.json). */
export const ARCHIVE_DIR = 'lagoon-chats';

const deflateRaw = promisify(zlib.deflateRaw);

/** A zip entry name: the chat's title and the start of its id (titles repeat), never a path. */
const entryName = (title: string, id: string, ext: string) => `${ARCHIVE_DIR}/chats/${fileStem(title, 'chat').slice(0, 60)} (${id.slice(0, 8)}).${ext}`;

/** Every conversation of the user (archived ones too) as a zip byte stream. */
export function archiveStream(store: Store, userId: string): ReadableStream<Uint8Array> {
  const ops = userConversations(store, userId);
  let ids: string[] | undefined;
  let next = 0;
  let zip: Zip;
  let controller!: ReadableStreamDefaultController<Uint8Array>;

  const add = async (name: string, text: string) => {
    const raw = Buffer.from(text, 'utf8');
    const packed = await deflateRaw(raw, { level: 6 });
    // A zip entry whose bytes are already deflated: fflate adds the headers and the central directory.
    const file: ZipInputFile = { filename: name, size: raw.length, crc: zlib.crc32(raw), compression: 8, mtime: Date.now() };
    zip.add(file);
    file.ondata?.(null, new Uint8Array(packed.buffer, packed.byteOffset, packed.byteLength), true);
  };

  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        zip = new Zip((err, chunk, final) => {
          if (err) {
            controller.error(err);
            return;
          }
          if (chunk.length) controller.enqueue(chunk);
          if (final) controller.close();
        });
      },
      async pull() {
        // The ids first (oldest first, so the archive reads in the order the chats were made).
        ids ??= (await store.all<{ id: string }>('SELECT id FROM conversations WHERE user_id = $1 ORDER BY created_at, id', [userId])).map((r) => r.id);
        if (next === 0)
          await add(
            `${ARCHIVE_DIR}/README.txt`,
            `Lagoon chats exported ${new Date().toISOString()}: ${ids.length} chats.\n` +
              'chats/*.json: each chat with every branch (import this zip, or one file, on the chat page to read them back).\n' +
              'chats/*.md: the branch each chat opens on, as Markdown.\n',
          );
        // A few chats per pull: each is read and compressed in one go, then the stream waits for its reader.
        for (let done = 0; done < 4 && next < ids.length; done++) {
          const id = ids[next++];
          const c = await ops.get(id).catch(() => null); // deleted meanwhile: left out
          if (!c) continue;
          await add(entryName(c.title, c.id, 'json'), `${JSON.stringify(exportObject(c), null, 2)}\n`);
          const newest = c.messages.at(-1);
          await add(entryName(c.title, c.id, 'md'), exportMarkdown({ ...c, messages: newest ? pathTo(c.messages, newest.id) : [] }));
        }
        if (next >= ids.length) zip.end();
      },
    },
    // Compressed bytes waiting for a slow reader: at most about 1 MB before the next chat is read.
    new ByteLengthQueuingStrategy({ highWaterMark: 1024 * 1024 }),
  );
}
