// Every page's words come from the message catalogue: the scan (scripts/english-scan.ts) reads every component and
// page under components/ and app/ and this fails listing file:line for English written into the code, so a new string
// cannot skip translation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorCodeGaps, englishIn, sources } from '../../scripts/english-scan.ts';
import de from './messages/de.json' with { type: 'json' };
import en from './messages/en.json' with { type: 'json' };

test('no component or page writes English of its own', () => {
  const files = [...sources('components'), ...sources('app')];
  assert.ok(files.length > 200, `${files.length} files scanned`);
  const found = files.flatMap((f) => englishIn(f));
  assert.deepEqual(found, [], 'move these strings into components/i18n/messages/en.json (and de.json)');
});

test("the server's error codes the chat shows have words in every language, and only real codes do", () => {
  assert.deepEqual(errorCodeGaps(en.apiClient.codes), []);
  assert.deepEqual(errorCodeGaps(de.apiClient.codes), []);
  // The check sees a gap and a stale key.
  const { RATE_LIMIT_EXCEEDED: _, ...short } = en.apiClient.codes;
  assert.deepEqual(errorCodeGaps({ ...short, NO_SUCH_CODE: 'x' }), ['RATE_LIMIT_EXCEEDED: no words', 'NO_SUCH_CODE: not a server error code']);
});

test('the scan sees what it guards against, and lets code be', () => {
  const sample = 'components/i18n/guard-sample.fixture.tsx';
  assert.deepEqual(
    englishIn(sample).map((f) => f.replace(/^.*?:\d+ /, '')),
    [
      "label: 'And this'",
      "'Something went wrong.'",
      'text "Hard-coded words"',
      "aria-label: 'Also hard-coded'",
      "text {'Saving…'}",
      "text {'Save'}",
      "title: 'Open '",
    ],
  );
});
