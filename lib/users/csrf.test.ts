// CSRF checks and the session cookie helpers (pure functions, no store).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkCsrf, safeEqual } from './csrf.ts';
import { clearSessionCookie, parseCookies, sessionCookie } from './sessions.ts';

const base = { method: 'POST', origin: 'https://chat.example.com', host: 'chat.example.com', headerToken: 'tok-123', sessionCsrf: 'tok-123' };
const forbidden = (re: RegExp) => ({ name: 'Error', code: 'FORBIDDEN', status: 403, message: re });

describe('checkCsrf', () => {
  test('safe methods pass without any token or origin', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'get']) {
      assert.doesNotThrow(() =>
        checkCsrf({ method, origin: 'https://evil.example', host: 'chat.example.com', headerToken: undefined, sessionCsrf: undefined }),
      );
    }
  });
  test('state-changing methods pass with the right token and a same-host origin', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'post']) assert.doesNotThrow(() => checkCsrf({ ...base, method }));
  });
  test('a missing Origin is allowed when the token matches', () => {
    assert.doesNotThrow(() => checkCsrf({ ...base, origin: undefined }));
    assert.doesNotThrow(() => checkCsrf({ ...base, origin: null }));
  });
  test('origin host comparison includes the port and ignores case', () => {
    assert.doesNotThrow(() => checkCsrf({ ...base, origin: 'http://localhost:3000', host: 'localhost:3000' }));
    assert.doesNotThrow(() => checkCsrf({ ...base, origin: 'https://Chat.Example.com', host: 'CHAT.example.com' }));
    assert.throws(() => checkCsrf({ ...base, origin: 'http://localhost:3001', host: 'localhost:3000' }), forbidden(/Origin/));
  });
  test('a foreign, opaque or malformed Origin is refused', () => {
    for (const origin of ['https://evil.example', 'null', 'not a url', 'https://chat.example.com.evil.example']) {
      assert.throws(() => checkCsrf({ ...base, origin }), forbidden(/Origin/), origin);
    }
    assert.throws(() => checkCsrf({ ...base, host: undefined }), forbidden(/Origin/));
  });
  test('a missing or wrong token is refused for every state-changing method', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      assert.throws(() => checkCsrf({ ...base, method, headerToken: undefined }), forbidden(/missing/));
      assert.throws(() => checkCsrf({ ...base, method, headerToken: '' }), forbidden(/missing/));
      assert.throws(() => checkCsrf({ ...base, method, headerToken: 'tok-124' }), forbidden(/does not match/));
      assert.throws(() => checkCsrf({ ...base, method, headerToken: 'tok-1234' }), forbidden(/does not match/));
      assert.throws(() => checkCsrf({ ...base, method, sessionCsrf: undefined }), forbidden(/no session/));
    }
  });
  test('safeEqual', () => {
    assert.equal(safeEqual('abc', 'abc'), true);
    assert.equal(safeEqual('abc', 'abd'), false);
    assert.equal(safeEqual('abc', 'abcd'), false);
    assert.equal(safeEqual('', ''), true);
  });
});

describe('session cookies', () => {
  test('sessionCookie carries HttpOnly, SameSite=Lax, Path=/, Max-Age and Secure only when asked', () => {
    const secure = sessionCookie('T0k', { secure: true, maxAgeSeconds: 3600 });
    const parts = secure.split('; ');
    assert.equal(parts[0], 'lagoon_session=T0k');
    for (const attr of ['HttpOnly', 'SameSite=Lax', 'Path=/', 'Max-Age=3600', 'Secure']) assert.ok(parts.includes(attr), `${attr} in ${secure}`);
    const plain = sessionCookie('T0k', { secure: false, maxAgeSeconds: 59.9 }).split('; ');
    assert.ok(!plain.includes('Secure'));
    assert.ok(plain.includes('Max-Age=59'));
    assert.ok(plain.includes('HttpOnly'));
  });
  test('clearSessionCookie expires the cookie', () => {
    const c = clearSessionCookie(true).split('; ');
    assert.equal(c[0], 'lagoon_session=');
    for (const attr of ['Max-Age=0', 'HttpOnly', 'SameSite=Lax', 'Path=/', 'Secure']) assert.ok(c.includes(attr), attr);
    assert.ok(c.some((p) => p.startsWith('Expires=Thu, 01 Jan 1970')));
    assert.ok(!clearSessionCookie(false).split('; ').includes('Secure'));
  });
  test('parseCookies', () => {
    assert.deepEqual({ ...parseCookies(undefined) }, {});
    assert.deepEqual({ ...parseCookies('') }, {});
    assert.deepEqual(
      { ...parseCookies('a=1; lagoon_session=abc-_XYZ; b=x%20y; c="quoted"; junk; =novalue; a=2; d=%E0%A4%A') },
      {
        a: '1',
        lagoon_session: 'abc-_XYZ',
        b: 'x y',
        c: 'quoted',
        d: '%E0%A4%A',
      },
    );
    const p = parseCookies('__proto__=x; toString=y');
    // biome-ignore lint/suspicious/noProto: the test is that a cookie named __proto__ stays a plain own property
    assert.equal(p.__proto__, 'x');
    assert.equal(p.toString, 'y');
  });
});
