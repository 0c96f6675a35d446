// What keeps tool traffic in bounds without a server: credential shapes and kept header values refused in
// arguments, MCP server URLs vetted (private and metadata addresses, credentials in URLs), results capped.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkServerUrl, secretInArguments } from './guard.ts';
import { mergeHeaders, messageOf } from './mcp-client.ts';
import { capText, functionName } from './tool.ts';

describe('tool guards', () => {
  test('credentials in arguments: key shapes and the values this server keeps', () => {
    for (const bad of [
      `{"k":"lgn_inf_${'a'.repeat(30)}"}`,
      `{"k":"sk-${'A'.repeat(40)}"}`,
      `{"t":"ghp_${'x'.repeat(36)}"}`,
      '{"a":"AKIAABCDEFGHIJKLMNOP"}',
      '{"pem":"-----BEGIN RSA PRIVATE KEY-----"}',
    ]) {
      assert.match(secretInArguments(bad) ?? '', /credential/, bad);
    }
    assert.match(secretInArguments('{"q":"say op-secret-123 please"}', ['op-secret-123']) ?? '', /keeps/);
    assert.equal(secretInArguments('{"q":"weather in Lisbon"}', ['op-secret-123', 'short']), null);
    // A kept value shorter than 8 characters is too common to refuse on.
    assert.equal(secretInArguments('{"q":"abc"}', ['abc']), null);
  });

  test('MCP server URLs: http(s) only, no credentials, no private or metadata address unless allowed', () => {
    assert.equal(checkServerUrl('https://mcp.example.com/mcp', []).href, 'https://mcp.example.com/mcp');
    for (const url of [
      'ftp://x.example/',
      'http://u:p@x.example/',
      'not a url',
      'http://10.1.2.3/',
      'http://169.254.169.254/',
      'http://[fd00::1]/',
      'http://metadata.google.internal/',
    ]) {
      assert.throws(() => checkServerUrl(url, []), { code: 'INVALID_REQUEST' }, url);
    }
    assert.equal(checkServerUrl('http://10.1.2.3:8080/mcp', ['10.1.2.3']).port, '8080');
  });

  test('results are capped with a note; names fit the function-name rules; headers merge by name', () => {
    assert.deepEqual(capText('short', 10), { text: 'short', truncated: false });
    const cut = capText('x'.repeat(50), 10);
    assert.ok(cut.truncated && cut.text.startsWith(`${'x'.repeat(10)}\n[… cut: the result was 50 characters, the limit is 10]`));
    // Never half a surrogate pair.
    assert.equal(capText(`${'a'.repeat(9)}😀😀`, 10).text.slice(0, 10), `${'a'.repeat(9)}\n`);
    assert.equal(functionName('My Server!__look up'), 'My_Server___look_up');
    assert.equal(functionName('x'.repeat(100)).length, 64);
    assert.deepEqual(mergeHeaders({ Authorization: 'Bearer op', 'X-A': '1' }, { authorization: 'Bearer me' }), { authorization: 'Bearer me', 'x-a': '1' });
    assert.equal(
      messageOf(new TypeError('fetch failed', { cause: new Error('10.0.0.1 resolves to a private address') })),
      'fetch failed: 10.0.0.1 resolves to a private address',
    );
  });
});
