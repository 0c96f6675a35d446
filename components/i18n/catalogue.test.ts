// The message catalogues (components/i18n/messages/*.json): every language has exactly the English keys, no value is
// empty, each message keeps the English one's {placeholders} and <tags>, and every message is valid ICU (use-intl's
// own formatter renders it). That no component writes English of its own is no-english.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTranslator } from 'use-intl/core';
import de from './messages/de.json' with { type: 'json' };
import en from './messages/en.json' with { type: 'json' };
import { fromAcceptLanguage, pickLocale } from './locales.ts';

type Tree = { [k: string]: string | Tree };

function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.set(key, v);
    else for (const [kk, vv] of flatten(v, key)) out.set(kk, vv);
  }
  return out;
}

/**
 * The arguments an ICU message uses, sorted and unique: `{name}`, `{n, number}`, and those inside the branches of a
 * `{count, plural, one {…} other {…}}` (whose own words, "one {File}", are text, not arguments).
 */
function placeholders(message: string): string[] {
  const found = new Set<string>();
  let i = 0;
  const skipSpace = () => {
    while (/\s/.test(message[i] ?? '')) i++;
  };
  // Text up to the closing brace of the enclosing branch (or the end); arguments are read as they come.
  const text = (): void => {
    while (i < message.length && message[i] !== '}') {
      if (message[i] === '{') argument();
      else i++;
    }
  };
  const argument = (): void => {
    i++;
    skipSpace();
    const name = /^\w+/.exec(message.slice(i))?.[0] ?? '';
    i += name.length;
    found.add(name);
    skipSpace();
    if (message[i] === ',') {
      i++;
      skipSpace();
      const kind = /^\w+/.exec(message.slice(i))?.[0] ?? '';
      i += kind.length;
      skipSpace();
      if (['plural', 'select', 'selectordinal'].includes(kind)) {
        i++; // the comma before the branches
        for (skipSpace(); i < message.length && message[i] !== '}'; skipSpace()) {
          while (i < message.length && message[i] !== '{') i++; // the selector: "one", "=0", "offset:1"
          i++;
          text();
          i++;
        }
      } else while (i < message.length && message[i] !== '}') i++; // a style: "{n, number, percent}"
    }
    i++;
  };
  text();
  return [...found].sort();
}

test('every catalogue has the English keys, none empty, the same placeholders', () => {
  const english = flatten(en);
  assert.ok(english.size > 100, `${english.size} English messages`);
  for (const [name, catalogue] of [['de', de]] as const) {
    const other = flatten(catalogue);
    assert.deepEqual([...other.keys()].sort(), [...english.keys()].sort(), `${name} has the English keys`);
    for (const [key, value] of other) {
      assert.ok(value.trim(), `${name}: ${key} is empty`);
      assert.deepEqual(placeholders(value), placeholders(english.get(key) ?? ''), `${name}: ${key} keeps the placeholders`);
    }
  }
  for (const [key, value] of english) assert.ok(value.trim(), `en: ${key} is empty`);
});

/** The rich-text tags a message wraps words in (`<link>…</link>`), sorted: the component supplies one function each. */
const tags = (message: string) => [...new Set([...message.matchAll(/<(\w+)>/g)].map((m) => m[1]))].sort();

test('every translation keeps the English tags, and every message renders', () => {
  const english = flatten(en);
  for (const [locale, catalogue] of [
    ['en', en],
    ['de', de],
  ] as const) {
    const errors: string[] = [];
    const t = createTranslator({ locale, messages: catalogue as typeof en, onError: (e) => void errors.push(e.message) });
    for (const [key, value] of flatten(catalogue)) {
      assert.deepEqual(tags(value), tags(english.get(key) ?? ''), `${locale}: ${key} keeps the tags`);
      // Every argument gets a value of each kind it may be (a count for plurals, a word for selects and text).
      const values = Object.fromEntries(placeholders(value).map((name) => [name, /count|^n$|max|min|days|files|status|seconds|minutes/.test(name) ? 2 : 'x']));
      const chunks = Object.fromEntries(tags(value).map((name) => [name, (words: unknown) => words]));
      // The key is read from the catalogue itself, so the translator is called untyped.
      const say = (tags(value).length ? t.rich : t) as unknown as (key: string, values: object) => unknown;
      say(key, { ...values, ...chunks });
      assert.deepEqual(errors.splice(0), [], `${locale}: ${key} renders`);
    }
  }
});

test('the placeholders of a plural message are its arguments, not its words', () => {
  assert.deepEqual(placeholders('{count, plural, one {File} other {# files in {folder}}} by {name}'), ['count', 'folder', 'name']);
  assert.deepEqual(placeholders('{n, number} of {total}'), ['n', 'total']);
});

test('the language: the saved choice, else Accept-Language by weight, else English', () => {
  assert.equal(pickLocale('de', 'en-US,en;q=0.9'), 'de');
  assert.equal(pickLocale(undefined, 'de-CH,de;q=0.9,en;q=0.8'), 'de');
  assert.equal(pickLocale(undefined, 'fr-FR,fr;q=0.9,de;q=0.5,en;q=0.7'), 'en');
  assert.equal(pickLocale('xx', 'fr, de;q=0.1'), 'de');
  assert.equal(pickLocale(null, null), 'en');
  assert.equal(fromAcceptLanguage('de;q=0, fr'), undefined);
});
