// Where to go after signing in: only a path on this site (never `//host` or a full URL, which would make the sign-in
// page an open redirect), and never back to the auth pages themselves.
export function safeNext(raw: string | null | undefined): string {
  if (!raw?.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return '/';
  if (/^\/(sign-in|sign-up)(?:[/?#]|$)/.test(raw)) return '/';
  return raw;
}

/** The sign-in URL that brings the user back to `path` afterwards. */
export function signInUrl(path: string): string {
  return path && path !== '/' ? `/sign-in?next=${encodeURIComponent(path)}` : '/sign-in';
}
