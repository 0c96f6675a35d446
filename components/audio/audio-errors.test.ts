import assert from 'node:assert/strict';
import { test } from 'node:test';
import { audioErrorText, dictationUnsupported, microphoneErrorText } from './audio-errors.ts';

test('audioErrorText: no credit, rate limits and busy engines in plain words; otherwise the server message', () => {
  assert.equal(
    audioErrorText({ status: 402, code: 'INSUFFICIENT_BALANCE', message: 'Insufficient…' }, 'speech'),
    "You're out of credit: add credit to hear answers read aloud.",
  );
  assert.equal(audioErrorText({ status: 402, code: 'X', message: '' }, 'dictation'), "You're out of credit: add credit to dictate.");
  assert.equal(
    audioErrorText({ status: 429, code: 'RATE_LIMIT_EXCEEDED', message: '', retryAfter: 12 }, 'speech'),
    'Too many read-alouds just now. Try again in 12 s.',
  );
  assert.equal(
    audioErrorText({ status: 429, code: 'RATE_LIMIT_EXCEEDED', message: '', retryAfter: 600 }, 'dictation'),
    'Too many dictations just now. Try again in 10 min.',
  );
  assert.match(audioErrorText({ status: 503, code: 'ENGINE_UNAVAILABLE', message: 'x' }, 'speech'), /^Read-aloud is busy or unavailable.*moment\.$/);
  assert.match(audioErrorText({ status: 0, code: 'NETWORK_ERROR', message: '' }, 'speech'), /Could not reach the server/);
  assert.match(audioErrorText({ status: 422, code: 'EMPTY_AUDIO', message: 'The audio is empty' }, 'dictation'), /No sound was recorded/);
  assert.equal(audioErrorText({ status: 400, code: 'INVALID_REQUEST', message: 'Voice "x" is not a voice' }, 'speech'), 'Voice "x" is not a voice');
});

test('microphoneErrorText: denied, missing, busy and unsupported microphones are told apart', () => {
  assert.match(microphoneErrorText({ name: 'NotAllowedError' }), /^Microphone access was denied\. Allow this site/);
  assert.match(microphoneErrorText({ name: 'SecurityError' }), /denied/);
  assert.match(microphoneErrorText({ name: 'NotFoundError' }), /^No microphone was found/);
  assert.match(microphoneErrorText({ name: 'NotReadableError' }), /another app/);
  assert.match(microphoneErrorText(new Error('odd')), /could not be used/);
  assert.match(microphoneErrorText(null), /could not be used/);
});

test('dictationUnsupported: an insecure page or a browser without MediaRecorder says why', () => {
  assert.match(dictationUnsupported({ isSecureContext: false }) ?? '', /secure \(https\)/);
  assert.match(dictationUnsupported({ isSecureContext: true, mediaDevices: {} }) ?? '', /cannot record audio/);
  assert.equal(dictationUnsupported({ isSecureContext: true, mediaDevices: {}, MediaRecorder: class {} }), null);
});
