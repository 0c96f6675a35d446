import { test } from 'node:test';
import assert from 'node:assert/strict';
import { messageText, toChatHistory } from './chat-history.ts';

test('messages map to chat history items and end with an open model turn', () => {
  assert.deepEqual(
    toChatHistory([
      { role: 'developer', content: 'Rules.' },
      { role: 'system', content: 'Be kind.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look:' },
          { type: 'image_url', image_url: { url: 'x' } },
          { type: 'text', text: 'what?' },
        ],
      },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', name: 'f', tool_call_id: 'c1', content: '42' },
      { role: 'assistant', content: 'It is 42.' },
    ]),
    [
      { type: 'system', text: 'Rules.' },
      { type: 'system', text: 'Be kind.' },
      { type: 'user', text: 'Look:\nwhat?' },
      { type: 'model', response: [] },
      { type: 'user', text: 'f result: 42' },
      { type: 'model', response: ['It is 42.'] },
      { type: 'model', response: [] },
    ],
  );
});

test('messageText tolerates null and non-text parts', () => {
  assert.equal(messageText(null), '');
  assert.equal(messageText([{ type: 'input_audio' }]), '');
});
