// A real OpenID Connect provider for tests: oidc-provider (MIT) on loopback, with one confidential client (PKCE
// required) and its own development login page, where any login name signs in as the test account of that name. The
// port is taken first (the server's issuer must be configured before it starts), and the provider is made once the
// client's redirect URI is known. `loginAt` drives the provider's pages over HTTP as a browser would (its cookies,
// the login form), for API tests; browser tests use the same pages in Chromium.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestClaims {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Makes the provider, for a client that redirects to `uri`; call once the app's origin is known. */
  start(uri: string): void;
  /** The claims of the account a login name signs in as (default: `<login>@example.test`, verified). */
  accounts: Map<string, TestClaims>;
  close(): Promise<void>;
}

export async function startOidcProvider(): Promise<TestProvider> {
  let handler: http.RequestListener | undefined;
  const server = http.createServer((req, res) => {
    if (!handler) {
      res.statusCode = 503;
      res.end('provider not started');
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, TestClaims>();
  const clientId = 'lagoon-test';
  const clientSecret = 'lagoon-test-secret-0123456789abcdef';
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    start(uri: string) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [uri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ],
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        // ID tokens carry the claims (the app reads no userinfo).
        conformIdTokenClaims: false,
        features: { devInteractions: { enabled: true } },
        pkce: { required: () => true },
        cookies: { keys: ['lagoon-test-cookie-key'] },
        async findAccount(_ctx, id) {
          const claims = accounts.get(id) ?? { email: `${id}@example.test`, email_verified: true };
          return { accountId: id, claims: async () => ({ sub: id, ...claims }) };
        },
        // The test client is first-party: consent is granted without a page of its own.
        async loadExistingGrant(ctx) {
          const oidc = ctx.oidc;
          const grantId = oidc.result?.consent?.grantId || (oidc.client && oidc.session?.grantIdFor(oidc.client.clientId));
          if (grantId) return oidc.provider.Grant.find(grantId);
          if (!oidc.client || !oidc.session?.accountId) return undefined;
          const grant = new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId });
          grant.addOIDCScope('openid email profile');
          grant.addOIDCClaims(['email', 'email_verified', 'name']);
          await grant.save();
          return grant;
        },
      });
      // Its development pages only serve plain HTTP on loopback here.
      provider.proxy = false;
      handler = provider.callback();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Signs in at the provider as `login`, starting from its authorization URL, and returns the URL it redirects the
 * browser back to (the app's callback with code and state), without following it.
 */
export async function loginAt(authorizationUrl: string, login: string, redirectUri: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(authorizationUrl);
  let init: { method: string; body?: string } = { method: 'GET' };
  for (let step = 0; step < 12; step++) {
    const headers: Record<string, string> = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
    if (init.body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      const next = new URL(res.headers.get('location') ?? '', url);
      if (next.toString().startsWith(redirectUri)) return next;
      url = next;
      init = { method: 'GET' };
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`the provider answered ${res.status}: ${html.slice(0, 300)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`no form on the provider's page: ${html.slice(0, 300)}`);
    const form = new URLSearchParams();
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) form.set(m[1], m[2]);
    if (html.includes('name="login"')) {
      form.set('login', login);
      form.set('password', 'any password');
    }
    url = new URL(action.replace(/&amp;/g, '&'), url);
    init = { method: 'POST', body: form.toString() };
  }
  throw new Error('the provider did not send the browser back');
}
