// The prompt library's routes on SQLite and PostgreSQL: a user's own prompts (add, list, edit, delete; the 400s; the
// cap), which no other user can see, edit or delete (404, like a prompt that never was); the shared prompts, which
// everyone lists and only the operator adds, edits and deletes (403 for anyone else, and a shared prompt is out of
// reach of the user routes, even the operator's).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BACKENDS, type Dash, type DashUser, startDash } from '../../e2e/support/app-dash.ts';
import { MAX_PROMPT_TITLE, MAX_PROMPTS, userPrompts } from './prompts.ts';
import type { AppPrompt, AppPromptList } from './wire.ts';

for (const backend of BACKENDS)
  describe(`prompt routes (${backend})`, () => {
    let d: Dash;
    let op: DashUser;
    let alice: DashUser;
    let bob: DashUser;

    before(async () => {
      d = await startDash(backend);
      op = await d.newUser(); // the first user is the operator
      alice = await d.newUser();
      bob = await d.newUser();
    });
    after(() => d?.close());

    const list = async (who: DashUser) => {
      const r = await d.call(d.routes.listPrompts, '/prompts', { browser: who.browser });
      assert.equal(r.status, 200, r.text);
      return r.json as AppPromptList;
    };
    const create = (who: DashUser, body: unknown) => d.call(d.routes.createPrompt, '/prompts', { method: 'POST', body, browser: who.browser });
    const patch = (who: DashUser, id: string, body: unknown) =>
      d.call(d.routes.updatePrompt, `/prompts/${id}`, { method: 'PATCH', body, browser: who.browser }, { id });
    const del = (who: DashUser, id: string) => d.call(d.routes.deletePrompt, `/prompts/${id}`, { method: 'DELETE', browser: who.browser }, { id });
    const share = (who: DashUser, body: unknown) => d.call(d.routes.operatorCreatePrompt, '/operator/prompts', { method: 'POST', body, browser: who.browser });
    const patchShared = (who: DashUser, id: string, body: unknown) =>
      d.call(d.routes.operatorUpdatePrompt, `/operator/prompts/${id}`, { method: 'PATCH', body, browser: who.browser }, { id });
    const delShared = (who: DashUser, id: string) =>
      d.call(d.routes.operatorDeletePrompt, `/operator/prompts/${id}`, { method: 'DELETE', browser: who.browser }, { id });

    test('a user adds, lists, edits and deletes their own prompts, in the wire shape', async () => {
      assert.deepEqual((await list(alice)).items, []);
      const r = await create(alice, { title: '  Summarise\n this ', content: '\r\nSummarise {{text}} in three bullet points.\r\n\tKeep it short.  ' });
      assert.equal(r.status, 201, r.text);
      const p = r.json as AppPrompt;
      assert.deepEqual(Object.keys(p).sort(), ['content', 'createdAt', 'id', 'shared', 'title', 'updatedAt']);
      assert.equal(p.title, 'Summarise this');
      assert.equal(p.content, 'Summarise {{text}} in three bullet points.\n\tKeep it short.', 'line breaks and tabs kept, ends trimmed');
      assert.equal(p.shared, false);
      await create(alice, { title: 'Answer in French', content: 'Réponds en français.' });
      const got = await list(alice);
      assert.deepEqual(
        got.items.map((x) => x.title),
        ['Answer in French', 'Summarise this'],
      );
      assert.equal(got.canShare, false);
      assert.equal(got.max, MAX_PROMPTS);
      const edited = await patch(alice, p.id, { content: 'Summarise {{text}} in one line.' });
      assert.equal(edited.status, 200, edited.text);
      assert.equal((edited.json as AppPrompt).content, 'Summarise {{text}} in one line.');
      assert.equal((edited.json as AppPrompt).title, 'Summarise this');
      assert.ok((edited.json as AppPrompt).updatedAt > p.updatedAt);
      assert.equal((await del(alice, p.id)).status, 204);
      assert.deepEqual(
        (await list(alice)).items.map((x) => x.title),
        ['Answer in French'],
      );
      assert.equal((await del(alice, p.id)).status, 404, 'deleted once');
    });

    test('bad input is a 400 naming the field; unknown fields are refused', async () => {
      for (const [body, param] of [
        [{ title: '   ', content: 'x' }, 'title'],
        [{ title: 'x', content: ' \n ' }, 'content'],
        [{ title: 'x'.repeat(MAX_PROMPT_TITLE + 1), content: 'x' }, 'title'],
        [{ title: 'x' }, 'content'],
      ] as const) {
        const r = await create(alice, body);
        assert.equal(r.status, 400, r.text);
        assert.equal((r.json as { param?: string }).param, param, r.text);
      }
      assert.equal((await create(alice, { title: 'x', content: 'y', shared: true })).status, 400, 'a user cannot share through the user route');
      const own = (await list(alice)).items[0];
      assert.ok(own);
      assert.equal((await patch(alice, own.id, {})).status, 400, 'an empty patch');
    });

    test("another user cannot see, edit or delete a user's prompt (404, as if it never was)", async () => {
      const r = await create(alice, { title: 'Alice only', content: 'private words' });
      const p = r.json as AppPrompt;
      const bobs = await list(bob);
      assert.ok(!bobs.items.some((x) => x.id === p.id || x.content.includes('private words')));
      assert.equal((await patch(bob, p.id, { content: 'taken over' })).status, 404);
      assert.equal((await del(bob, p.id)).status, 404);
      // Not even the operator reaches it through the routes: the operator's are for shared prompts only.
      assert.equal((await patch(op, p.id, { content: 'taken over' })).status, 404);
      assert.equal((await patchShared(op, p.id, { content: 'taken over' })).status, 404);
      assert.equal((await delShared(op, p.id)).status, 404);
      assert.equal((await userPrompts(d.h.svc.store, alice.user.id).get(p.id)).content, 'private words');
      // Signed out: 401; without the CSRF token: refused.
      assert.equal((await d.call(d.routes.listPrompts, '/prompts')).status, 401);
      const noCsrf = await d.call(d.routes.createPrompt, '/prompts', {
        method: 'POST',
        body: { title: 'x', content: 'y' },
        browser: alice.browser,
        noCsrf: true,
      });
      assert.equal(noCsrf.status, 403, noCsrf.text);
    });

    test('shared prompts: everyone lists them; only the operator adds, edits and deletes them', async () => {
      const refused = await share(alice, { title: 'Team tone', content: 'Write in our house style.' });
      assert.equal(refused.status, 403, refused.text);
      const r = await share(op, { title: 'Team tone', content: 'Write in our house style.' });
      assert.equal(r.status, 201, r.text);
      const s = r.json as AppPrompt;
      assert.equal(s.shared, true);
      for (const who of [alice, bob, op]) {
        const got = await list(who);
        const seen = got.items.find((x) => x.id === s.id);
        assert.equal(seen?.shared, true, 'every user sees the shared prompt');
        assert.equal(got.canShare, who === op);
      }
      // The shared prompts come after the user's own.
      const alices = (await list(alice)).items;
      assert.equal(alices.at(-1)?.id, s.id);
      assert.ok(alices.slice(0, -1).every((x) => !x.shared));
      // A user cannot change it: not through the operator's routes (403), nor the user routes (404: not theirs).
      assert.equal((await patchShared(alice, s.id, { title: 'Mine now' })).status, 403);
      assert.equal((await delShared(bob, s.id)).status, 403);
      assert.equal((await patch(alice, s.id, { title: 'Mine now' })).status, 404);
      assert.equal((await del(alice, s.id)).status, 404);
      assert.equal((await patch(op, s.id, { title: 'Mine now' })).status, 404, 'the user routes never reach a shared prompt');
      const edited = await patchShared(op, s.id, { title: 'House style' });
      assert.equal(edited.status, 200, edited.text);
      assert.equal((await list(bob)).items.find((x) => x.id === s.id)?.title, 'House style');
      assert.equal((await delShared(op, s.id)).status, 204);
      assert.ok(!(await list(bob)).items.some((x) => x.id === s.id));
    });

    test('a user keeps at most MAX_PROMPTS prompts; the cap counts only their own', async () => {
      const carol = await d.newUser();
      const ops = userPrompts(d.h.svc.store, carol.user.id);
      for (let i = 0; i < MAX_PROMPTS; i++) await ops.create({ title: `p${i}`, content: 'x' });
      const over = await create(carol, { title: 'one more', content: 'x' });
      assert.equal(over.status, 400, over.text);
      assert.match(over.text, /At most 200 prompts/);
      assert.equal((await create(bob, { title: 'bob is fine', content: 'x' })).status, 201);
    });
  });
