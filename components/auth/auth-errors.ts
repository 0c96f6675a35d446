// Turning what the user typed and what the server answered into messages beside the right field.
import type { useTranslations } from 'use-intl';
import { AppApiError } from '@/components/api/client.ts';

/** The messages' translator (`useTranslations('authErrors')`): the words are the user's language. */
export type AuthT = ReturnType<typeof useTranslations<'authErrors'>>;

export type AuthField = 'email' | 'password' | 'displayName';
export type FieldErrors = Partial<Record<AuthField, string>>;

export interface AuthErrorView {
  fields: FieldErrors;
  /** A message for the whole form (wrong credentials, server trouble). */
  form?: string;
  /** Epoch ms when a 429 lets the user try again. */
  retryAt?: number;
}

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;
export const DISPLAY_NAME_MAX = 80;
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface AuthInput {
  email: string;
  password: string;
  displayName?: string;
  /** The operator's setup token, from the link the server logs while it has no operator. */
  setupToken?: string;
}

/** The checks the browser can make before sending; the server repeats them and has the last word. */
export function validateAuth(input: AuthInput, mode: 'sign-in' | 'sign-up', t: AuthT): FieldErrors {
  const errors: FieldErrors = {};
  if (!input.email.trim()) errors.email = t('emailMissing');
  else if (!EMAIL_SHAPE.test(input.email.trim())) errors.email = t('emailInvalid');
  if (!input.password) errors.password = t('passwordMissing');
  else if (mode === 'sign-up' && [...input.password].length < PASSWORD_MIN) errors.password = t('atLeast', { min: PASSWORD_MIN });
  else if (mode === 'sign-up' && [...input.password].length > PASSWORD_MAX) errors.password = t('atMost', { max: PASSWORD_MAX });
  if (mode === 'sign-up' && (input.displayName?.trim().length ?? 0) > DISPLAY_NAME_MAX) {
    errors.displayName = t('atMost', { max: DISPLAY_NAME_MAX });
  }
  return errors;
}

function fieldOf(path: unknown, message: string): AuthField | undefined {
  const head = Array.isArray(path) ? path[0] : undefined;
  if (head === 'email' || head === 'password' || head === 'displayName') return head;
  if (/display ?name/i.test(message)) return 'displayName';
  if (/password/i.test(message)) return 'password';
  if (/email/i.test(message)) return 'email';
  return undefined;
}

/** Maps a failed sign-in/sign-up to field errors (400 `issues`, or a message naming the field) or a form message. */
export function describeAuthError(err: unknown, mode: 'sign-in' | 'sign-up', t: AuthT): AuthErrorView {
  if (!(err instanceof AppApiError)) return { fields: {}, form: t('generic') };
  if (err.status === 401) {
    return { fields: {}, form: mode === 'sign-in' ? t('wrongCredentials') : t('signUpFailed') };
  }
  if (err.status === 429) {
    return { fields: {}, form: t('tooMany'), retryAt: Date.now() + (err.retryAfter ?? 60) * 1000 };
  }
  if (err.status === 400) {
    const fields: FieldErrors = {};
    const issues = Array.isArray(err.body.issues) ? (err.body.issues as Array<{ path?: unknown; message?: unknown }>) : [];
    for (const issue of issues) {
      const message = typeof issue.message === 'string' ? issue.message : t('invalidValue');
      const field = fieldOf(issue.path, message);
      if (field && !fields[field]) fields[field] = message;
    }
    if (!issues.length) {
      const field = fieldOf(undefined, err.message);
      if (field) fields[field] = err.message;
    }
    return Object.keys(fields).length ? { fields } : { fields, form: err.message };
  }
  if (err.status === 0) return { fields: {}, form: err.message };
  return { fields: {}, form: t('serverFailed', { status: err.status }) };
}
