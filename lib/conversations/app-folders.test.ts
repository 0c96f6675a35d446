// Organising chats on SQLite and PostgreSQL: folders (create, rename, delete moving their chats out), filing a chat
// into a folder and out of it, pinned and archived chats, the lists' filters, search by folder (archived chats
// found too), the 400s, and that no user can see, fill or delete another's folder.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BACKENDS, type Dash, type DashUser, startDash } from '../../e2e/support/app-dash.ts';
import type { AppConversation, AppFolder } from '../wire.ts';
import { MAX_FOLDERS } from './folders.ts';
import { userConversations } from './conversations.ts';

for (const backend of BACKENDS)
  describe(`chat folders, pins and archive (${backend})`, () => {
    let d: Dash;
    let alice: DashUser;
    let bob: DashUser;

    before(async () => {
      d = await startDash(backend);
      alice = await d.newUser();
      bob = await d.newUser();
    });
    after(() => d?.close());

    const newFolder = (who: DashUser, name: string) => d.call(d.routes.createFolder, '/folders', { method: 'POST', body: { name }, browser: who.browser });
    const folders = async (who: DashUser) => (await d.call(d.routes.listFolders, '/folders', { browser: who.browser })).json.items as AppFolder[];
    const rename = (who: DashUser, id: string, name: string) =>
      d.call(d.routes.renameFolder, `/folders/${id}`, { method: 'PATCH', body: { name }, browser: who.browser }, { id });
    const delFolder = (who: DashUser, id: string) => d.call(d.routes.deleteFolder, `/folders/${id}`, { method: 'DELETE', browser: who.browser }, { id });
    const patch = (who: DashUser, id: string, body: unknown) =>
      d.call(d.routes.updateConversation, `/conversations/${id}`, { method: 'PATCH', body, browser: who.browser }, { id });
    const list = async (who: DashUser, query = '') => {
      const r = await d.call(d.routes.listConversations, `/conversations${query}`, { browser: who.browser });
      assert.equal(r.status, 200, r.text);
      return (r.json.items as AppConversation[]).map((c) => c.title);
    };
    const search = async (who: DashUser, query: string) => d.call(d.routes.search, `/search?${query}`, { browser: who.browser });
    const chat = async (who: DashUser, title: string) => userConversations(d.h.svc.store, who.user.id).create({ title });

    test('folders: create, list in the order made, rename; bad names are 400s; another user gets 404', async () => {
      const a = await newFolder(alice, '  Work  ');
      assert.equal(a.status, 201, a.text);
      assert.deepEqual(Object.keys(a.json).sort(), ['createdAt', 'id', 'name']);
      assert.equal(a.json.name, 'Work');
      const b = (await newFolder(alice, 'Travel')).json as AppFolder;
      assert.deepEqual(
        (await folders(alice)).map((f) => f.name),
        ['Work', 'Travel'],
      );
      assert.deepEqual(await folders(bob), []);
      const renamed = await rename(alice, b.id, 'Trips');
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal(renamed.json.name, 'Trips');
      for (const name of ['', '   ', 'x'.repeat(101)]) assert.equal((await newFolder(alice, name)).status, 400);
      assert.equal(
        (await d.call(d.routes.createFolder, '/folders', { method: 'POST', body: { name: 'x', color: 'red' }, browser: alice.browser })).status,
        400,
      );
      assert.equal((await rename(bob, b.id, 'Mine')).status, 404);
      assert.equal((await delFolder(bob, b.id)).status, 404);
      assert.deepEqual(
        (await folders(alice)).map((f) => f.name),
        ['Work', 'Trips'],
      );
      for (const f of await folders(alice)) assert.equal((await delFolder(alice, f.id)).status, 204);
    });

    test('filing a chat: into a folder and out; its place in the activity order stays; a folder of another user or none is 404', async () => {
      const f = (await newFolder(alice, 'Recipes')).json as AppFolder;
      const soup = await chat(alice, 'Soup');
      const bread = await chat(alice, 'Bread');
      const r = await patch(alice, soup.id, { folderId: f.id });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.folderId, f.id);
      assert.equal(r.json.updatedAt, soup.updatedAt);
      assert.deepEqual(await list(alice, `?folder=${f.id}`), ['Soup']);
      assert.ok(!(await list(alice, '?folder=none')).includes('Soup'));
      assert.ok((await list(alice, '?folder=none')).includes('Bread'));
      // Without a filter: every chat, filed or not.
      assert.ok((await list(alice)).includes('Soup'));

      const bobs = (await newFolder(bob, 'Bob stuff')).json as AppFolder;
      assert.equal((await patch(alice, bread.id, { folderId: bobs.id })).status, 404);
      assert.equal((await patch(alice, bread.id, { folderId: 'no-such-folder' })).status, 404);
      assert.equal((await patch(bob, soup.id, { folderId: bobs.id })).status, 404);
      assert.deepEqual(await list(bob, `?folder=${bobs.id}`), []);
      assert.deepEqual(await list(bob, `?folder=${f.id}`), []);

      const out = await patch(alice, soup.id, { folderId: null });
      assert.equal(out.json.folderId, null);
      assert.deepEqual(await list(alice, `?folder=${f.id}`), []);
      assert.equal((await delFolder(alice, f.id)).status, 204);
      assert.equal((await delFolder(bob, bobs.id)).status, 204);
    });

    test('deleting a folder moves its chats out of it; none is deleted', async () => {
      const f = (await newFolder(alice, 'Old project')).json as AppFolder;
      const one = await chat(alice, 'Kept one');
      const two = await chat(alice, 'Kept two');
      for (const c of [one, two]) assert.equal((await patch(alice, c.id, { folderId: f.id })).status, 200);
      assert.equal((await delFolder(alice, f.id)).status, 204);
      assert.equal((await delFolder(alice, f.id)).status, 404);
      const none = await list(alice, '?folder=none');
      assert.ok(none.includes('Kept one') && none.includes('Kept two'));
      const got = await d.call(d.routes.getConversation, `/conversations/${one.id}`, { browser: alice.browser }, { id: one.id });
      assert.equal(got.json.folderId, null);
      assert.deepEqual(await list(alice, `?folder=${f.id}`), []);
    });

    test('pinned and archived: the lists filter them; archived chats are found by search and restored', async () => {
      const carol = await d.newUser();
      const pinned = await chat(carol, 'Pinned lighthouse notes');
      const plain = await chat(carol, 'Plain chat');
      const old = await chat(carol, 'Archived lighthouse trip');
      assert.equal((await patch(carol, pinned.id, { pinned: true })).json.pinned, true);
      const archived = await patch(carol, old.id, { archived: true });
      assert.equal(archived.json.archived, true);
      assert.deepEqual(await list(carol, '?pinned=1'), ['Pinned lighthouse notes']);
      assert.deepEqual(await list(carol, '?pinned=0&folder=none'), ['Plain chat']);
      assert.deepEqual(await list(carol), ['Plain chat', 'Pinned lighthouse notes']);
      assert.deepEqual(await list(carol, '?archived=1'), ['Archived lighthouse trip']);
      const found = await search(carol, 'q=lighthouse');
      assert.deepEqual(
        found.json.hits.map((h: { conversation: AppConversation }) => [h.conversation.title, h.conversation.archived]),
        [
          ['Archived lighthouse trip', true],
          ['Pinned lighthouse notes', false],
        ],
      );
      assert.equal((await patch(carol, old.id, { archived: false })).json.archived, false);
      assert.deepEqual(await list(carol, '?archived=1'), []);
      assert.ok((await list(carol)).includes('Archived lighthouse trip'));
      assert.equal((await patch(carol, pinned.id, { pinned: false })).json.pinned, false);
      assert.deepEqual(await list(carol, '?pinned=1'), []);
      assert.equal(plain.title, 'Plain chat');
    });

    test('search filtered by folder; bad filters are 400s', async () => {
      const dave = await d.newUser();
      const f = (await newFolder(dave, 'Boats')).json as AppFolder;
      const inside = await chat(dave, 'Sailing boats');
      await chat(dave, 'Sailing lessons');
      await patch(dave, inside.id, { folderId: f.id });
      const all = await search(dave, 'q=sailing');
      assert.equal(all.json.hits.length, 2);
      const filtered = await search(dave, `q=sailing&folder=${f.id}`);
      assert.deepEqual(
        filtered.json.hits.map((h: { conversation: AppConversation }) => h.conversation.title),
        ['Sailing boats'],
      );
      // Another user's folder id finds nothing of theirs (or of anyone's).
      assert.equal((await search(alice, `q=sailing&folder=${f.id}`)).json.hits.length, 0);
      for (const q of ['q=sailing&folder=none']) assert.equal((await search(dave, q)).status, 400);
      for (const q of ['?pinned=2', '?archived=yes']) {
        const r = await d.call(d.routes.listConversations, `/conversations${q}`, { browser: dave.browser });
        assert.equal(r.status, 400, r.text);
      }
      assert.equal((await patch(dave, inside.id, { pinned: 'yes' })).status, 400);
      assert.equal((await patch(dave, inside.id, {})).status, 400);
    });

    test('filing chats while their folder is deleted leaves none filed in a folder that is gone', async () => {
      const fay = await d.newUser();
      for (let round = 0; round < 3; round++) {
        const f = (await newFolder(fay, `Racing ${round}`)).json as AppFolder;
        const chats = await Promise.all(Array.from({ length: 8 }, (_, i) => chat(fay, `Race ${round}.${i}`)));
        const results = await Promise.all([...chats.map((c) => patch(fay, c.id, { folderId: f.id })), delFolder(fay, f.id)]);
        // Each filing either happened before the delete (then moved out) or found the folder gone (404).
        for (const r of results.slice(0, -1)) assert.ok(r.status === 200 || r.status === 404, r.text);
        assert.equal(results.at(-1)?.status, 204);
        const dangling = await d.h.svc.store.all('SELECT id FROM conversations WHERE user_id = $1 AND folder_id IS NOT NULL', [fay.user.id]);
        assert.deepEqual(dangling, []);
      }
    });

    test(`at most ${MAX_FOLDERS} folders a user`, async () => {
      const erin = await d.newUser();
      await Promise.all(Array.from({ length: MAX_FOLDERS }, (_, i) => newFolder(erin, `F${i}`)));
      assert.equal((await folders(erin)).length, MAX_FOLDERS);
      const over = await newFolder(erin, 'One too many');
      assert.equal(over.status, 400);
    });
  });
