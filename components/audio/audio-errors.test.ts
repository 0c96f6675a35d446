import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTranslator } from 'use-intl/core';
import en from '../i18n/messages/en.json' with { type: 'json' };
import { type AudioFailure, audioErrorText, dictationUnsupported, microphoneErrorText } from './audio-errors.ts';

// The texts are the catalogue's; in English they read as the user sees them.
const t = createTranslator({ locale: 'en', messages: en, namespace: 'audioErrors' });
const say = (e: AudioFailure, what: 'speech' | 'dictation') => audioErrorText(e, what, t);
const mic = (e: unknown) => microphoneErrorText(e, t);
const unsupported = (env: Parameters<typeof dictationUnsupported>[0]) => dictationUnsupported(env, t);

test('audioErrorText: no credit, rate limits and busy engines in plain words; otherwise the server message', () => {
  assert.equal(
    say({ status: 402, code: 'INSUFFICIENT_BALANCE', message: 'Insufficient…' }, 'speech'),
    "You're out of credit: add credit to hear answers read aloud.",
  );
  assert.equal(say({ status: 402, code: 'X', message: '' }, 'dictation'), "You're out of credit: add credit to dictate.");
  assert.equal(say({ status: 429, code: 'RATE_LIMIT_EXCEEDED', message: '', retryAfter: 12 }, 'speech'), 'Too many read-alouds just now. Try again in 12 s.');
  assert.equal(
    say({ status: 429, code: 'RATE_LIMIT_EXCEEDED', message: '', retryAfter: 600 }, 'dictation'),
    'Too many dictations just now. Try again in 10 min.',
  );
  assert.match(say({ status: 503, code: 'ENGINE_UNAVAILABLE', message: 'x' }, 'speech'), /^Read-aloud is busy or unavailable.*moment\.$/);
  assert.match(say({ status: 0, code: 'NETWORK_ERROR', message: '' }, 'speech'), /Could not reach the server/);
  assert.match(say({ status: 422, code: 'EMPTY_AUDIO', message: 'The audio is empty' }, 'dictation'), /No sound was recorded/);
  assert.equal(say({ status: 400, code: 'INVALID_REQUEST', message: 'Voice "x" is not a voice' }, 'speech'), 'Voice "x" is not a voice');
});

test('microphoneErrorText: denied, missing, busy and unsupported microphones are told apart', () => {
  assert.match(mic({ name: 'NotAllowedError' }), /^Microphone access was denied\. Allow this site/);
  assert.match(mic({ name: 'SecurityError' }), /denied/);
  assert.match(mic({ name: 'NotFoundError' }), /^No microphone was found/);
  assert.match(mic({ name: 'NotReadableError' }), /another app/);
  assert.match(mic(new Error('odd')), /could not be used/);
  assert.match(mic(null), /could not be used/);
});

test('dictationUnsupported: an insecure page or a browser without MediaRecorder says why', () => {
  assert.match(unsupported({ isSecureContext: false }) ?? '', /secure \(https\)/);
  assert.match(unsupported({ isSecureContext: true, mediaDevices: {} }) ?? '', /cannot record audio/);
  assert.equal(unsupported({ isSecureContext: true, mediaDevices: {}, MediaRecorder: class {} }), null);
});
