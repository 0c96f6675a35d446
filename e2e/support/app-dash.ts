// Test helpers for the billing, key, rate-limit and operator routes: a harness with the app backend on SQLite or
// PostgreSQL, signed-in users as the browser holds them, and chats made through the public API with a key.
import crypto from 'node:crypto';
import assert from 'node:assert/strict';
import { type Harness, type HarnessOptions, post, startHarness } from './harness.ts';
import { createTestDatabase } from './pg.ts';
import { accountKeys, type KeyType } from '../../lib/auth/keys.ts';
import { grantUsd } from '../../lib/billing/ledger.ts';
import { toMicros } from '../../lib/billing/money.ts';
import { createSession, SESSION_COOKIE } from '../../lib/users/sessions.ts';
import { signUp, type User } from '../../lib/users/users.ts';
import { caller, type Browser } from './app-requests.ts';

export const BACKENDS = ['sqlite', 'postgres'] as const;
export type Backend = (typeof BACKENDS)[number];

export interface DashUser {
  user: User;
  email: string;
  browser: Browser;
}

export interface Dash {
  h: Harness;
  /** The app's route handlers (the same backend the server answers /api/app with). */
  routes: NonNullable<Harness['app']>['routes'];
  /** Calls a handler, scanning the response for key material (stored digests, key-shaped strings). */
  call: ReturnType<typeof caller>;
  newUser(usd?: number): Promise<DashUser>;
  /** A key of the user's account, made directly (its secret known to the test). */
  newKey(u: DashUser, type?: KeyType, description?: string): Promise<{ id: string; secret: string }>;
  close(): Promise<void>;
}

let seq = 0;

export async function startDash(backend: Backend, opts: { limits?: Record<string, unknown>; models?: HarnessOptions['models'] } = {}): Promise<Dash> {
  let drop: (() => Promise<void>) | undefined;
  let databaseUrl: string | undefined;
  if (backend === 'postgres') ({ url: databaseUrl, drop } = await createTestDatabase());
  // Instances on PostgreSQL seal stored upstream keys only under a configured key (the embedded store makes its own).
  const env = databaseUrl ? { LAGOON_SECRETS_KEY: crypto.randomBytes(32).toString('hex') } : undefined;
  const h = await startHarness({ app: true, databaseUrl, limits: opts.limits, env, models: opts.models });
  const routes = h.app!.routes;
  return {
    h,
    routes,
    call: caller(h.svc.store),
    async newUser(usd = 10) {
      const email = `dash${++seq}-${process.pid}@example.test`;
      const { user } = await signUp(h.svc.store, { email, password: 'correct horse battery staple' });
      if (usd > 0) await grantUsd(h.svc.store, user.accountId, toMicros(usd));
      const s = await createSession(h.svc.store, user.id);
      return { user, email, browser: { ip: '192.0.2.20', cookie: `${SESSION_COOKIE}=${s.token}`, csrf: s.csrfToken } };
    },
    async newKey(u, type = 'INFERENCE', description = 'test key') {
      const { key, secret } = await accountKeys(h.svc.store, u.user.accountId).create({ type, description });
      return { id: key.id, secret };
    },
    async close() {
      await h.close();
      await drop?.();
    },
  };
}

/** One chat completion through the public API with a bearer key; asserts it succeeded. */
export async function apiChat(h: Harness, key: string, model = 'scripted-model', reply = 'ok'): Promise<void> {
  const r = await post(h, '/chat/completions', key, { model, messages: [{ role: 'user', content: `hi [[reply:${reply}]]` }] });
  assert.equal(r.status, 200, r.text);
}
