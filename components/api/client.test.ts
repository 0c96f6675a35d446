// The browser's error words: a server error's code is shown in the page's language from the catalogue, the server's
// own text only for a code the catalogue does not word, and a failure without the server's body keeps its own words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import de from '../i18n/messages/de.json' with { type: 'json' };
import en from '../i18n/messages/en.json' with { type: 'json' };
import { AppApiError, errorText, setClientWords } from './client.ts';

test('a coded server error reads in the page language; an unworded code keeps the server text', () => {
  setClientWords(de.apiClient);
  const limited = new AppApiError(429, { error: 'Rate limit exceeded: 1 requests per minute for model m', code: 'RATE_LIMIT_EXCEEDED' }, 12);
  assert.equal(limited.message, de.apiClient.codes.RATE_LIMIT_EXCEEDED);
  assert.equal(limited.serverMessage, 'Rate limit exceeded: 1 requests per minute for model m');
  assert.equal(limited.code, 'RATE_LIMIT_EXCEEDED');
  assert.equal(
    new AppApiError(402, { error: 'Insufficient USD or Diem balance to complete request.', code: 'INSUFFICIENT_BALANCE' }).message,
    de.apiClient.codes.INSUFFICIENT_BALANCE,
  );
  assert.equal(new AppApiError(400, { error: 'name: too long', code: 'INVALID_REQUEST' }).message, 'name: too long');
  // No server body: the status in words, never a code's text (UNKNOWN_ERROR is only the fallback code here).
  assert.equal(new AppApiError(502, { error: 'Anfrage fehlgeschlagen (HTTP 502)' }).message, 'Anfrage fehlgeschlagen (HTTP 502)');
  assert.equal(errorText('MODEL_NOT_FOUND', 'Specified model not found: "x"'), de.apiClient.codes.MODEL_NOT_FOUND);
  // Inherited names are not codes.
  assert.equal(errorText('constructor', 'server text'), 'server text');
  setClientWords(en.apiClient);
  assert.equal(errorText('MODEL_NOT_FOUND', 'x'), en.apiClient.codes.MODEL_NOT_FOUND);
});
