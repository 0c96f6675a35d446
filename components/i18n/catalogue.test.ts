// The message catalogues (components/i18n/messages/*.json): every language has exactly the English keys, no value is
// empty, each message keeps the English one's {placeholders}, and the components already converted to the catalogue
// carry no English text of their own (a JSX text or a label-like attribute written out), so a new string in them
// cannot skip translation.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
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

/** The components converted to the catalogue. A file joins this list once it has no English of its own. */
const CONVERTED = [
  'app/not-found.tsx',
  'components/shell/app-shell.tsx',
  'components/shell/collapsed-rail.tsx',
  'components/shell/mobile-top-bar.tsx',
  'components/shell/not-found-body.tsx',
  'components/sidebar/sidebar.tsx',
  'components/sidebar/sidebar-search.tsx',
  'components/sidebar/user-menu.tsx',
  'components/billing/nav-links.tsx',
  'components/billing/dash-page.tsx',
  'components/account/account-page.tsx',
  'components/account/language-settings.tsx',
  'components/wallet/auto-top-up.tsx',
  'components/auth/auth-form.tsx',
  'components/auth/password-field.tsx',
  'components/usage/usage-page.tsx',
  'components/usage/daily-chart.tsx',
  'components/usage/summary-cards.tsx',
  'components/usage/model-table.tsx',
  'components/usage/recent-table.tsx',
  'components/keys/keys-page.tsx',
  'components/ui/table-toggle.tsx',
  'components/pwa/service-worker.tsx',
  'components/memory/remember-button.tsx',
  'components/memory/memory-suggestion.tsx',
  'components/memory/used-memories.tsx',
  'components/share/share-dialog.tsx',
  'components/knowledge/knowledge-picker.tsx',
  'components/operator/manage-account.tsx',
  'components/operator/clear-second-factor.tsx',
  'components/operator/reset-password.tsx',
  'components/operator/add-model-form.tsx',
  'components/operator/mcp-page.tsx',
  'components/operator/operator-page.tsx',
  'components/operator/models-page.tsx',
  'components/limits/limits-page.tsx',
  'components/limits/breach-log.tsx',
  'components/usage/rate-meter.tsx',
  'components/billing/statement.tsx',
  'components/billing/pager.tsx',
  'components/keys/create-key.tsx',
  'components/keys/key-form.tsx',
  'components/keys/key-list.tsx',
  'components/keys/snippets.tsx',
  'components/images/gallery-page.tsx',
  'components/images/image-card.tsx',
  'components/images/image-message.tsx',
  'components/images/image-mode-toggle.tsx',
  'components/images/image-options.tsx',
  'components/audio/dictation-button.tsx',
  'components/audio/read-aloud-button.tsx',
  'components/audio/voice-settings.tsx',
  'components/video/job-card.tsx',
  'components/video/job-list.tsx',
  'components/video/video-form.tsx',
  'components/video/video-page.tsx',
  'components/sidebar/archived-section.tsx',
  'components/sidebar/chat-list-section.tsx',
  'components/sidebar/conversation-item.tsx',
  'components/sidebar/conversation-list.tsx',
  'components/sidebar/conversation-menu.tsx',
  'components/sidebar/folder-list.tsx',
  'components/sidebar/move-dialog.tsx',
  'components/sidebar/rename-input.tsx',
  'components/sidebar/search-results.tsx',
  'components/chat/composer.tsx',
  'components/chat/chat-view.tsx',
  'components/chat/archived-notice.tsx',
  'components/chat/assistant-message.tsx',
  'components/chat/attachment-chip.tsx',
  'components/chat/branch-nav.tsx',
  'components/chat/chat-header.tsx',
  'components/chat/chat-missing.tsx',
  'components/chat/demo-notice.tsx',
  'components/chat/drop-overlay.tsx',
  'components/chat/empty-state.tsx',
  'components/chat/error-banner.tsx',
  'components/chat/generation-status.tsx',
  'components/chat/model-picker.tsx',
  'components/chat/model-option.tsx',
  'components/chat/capability-badges.tsx',
  'components/chat/copy-button.tsx',
  'components/chat/chat-settings.tsx',
  'components/chat/tool-settings.tsx',
  'components/chat/tool-steps.tsx',
  'components/chat/message-editor.tsx',
  'components/chat/user-message.tsx',
  'components/chat/transcript-row.tsx',
  'components/chat/transcript.tsx',
  'components/chat/sources-panel.tsx',
  'components/chat/usage-label.tsx',
  'components/chat/preview-blocks.tsx',
  'components/chat/reasoning-block.tsx',
  'components/chat/citation-sup.tsx',
];

/** Attributes and object keys that hold words a person reads. */
const WORDY = new Set(['label', 'title', 'aria-label', 'placeholder', 'description', 'note', 'alt', 'loading', 'failed', 'caption', 'legend', 'hint']);
/** Words that are the same in every language: names (the app's, file formats'), and values the browser reads (`<img loading="lazy">`). */
const NAMES = new Set(['Lagoon', 'CSV', 'JSON', 'lazy', 'eager']);
const isEnglish = (text: string) => /[A-Za-z]{2,}/.test(text) && !NAMES.has(text.trim());

function englishIn(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(process.cwd(), file), 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const at = (n: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
  const visit = (n: ts.Node) => {
    if (ts.isJsxText(n) && isEnglish(n.text)) found.push(`${at(n)} text "${n.text.trim()}"`);
    if (ts.isJsxAttribute(n) && WORDY.has(n.name.getText()) && n.initializer && ts.isStringLiteral(n.initializer) && isEnglish(n.initializer.text))
      found.push(`${at(n)} ${n.name.getText()}="${n.initializer.text}"`);
    if (ts.isPropertyAssignment(n) && WORDY.has(n.name.getText()) && ts.isStringLiteralLike(n.initializer) && isEnglish(n.initializer.text))
      found.push(`${at(n)} ${n.name.getText()}: '${n.initializer.text}'`);
    n.forEachChild(visit);
  };
  visit(source);
  return found;
}

test('the converted components write no English of their own', () => {
  const found = CONVERTED.flatMap(englishIn);
  assert.deepEqual(found, [], 'move these strings into components/i18n/messages/en.json (and every other catalogue)');
});

test('the guard sees what it guards against', () => {
  // The rule above, on a sample: a text node, a label attribute and a label property are caught; a message key is not.
  const sample = 'components/i18n/guard-sample.fixture.tsx';
  assert.deepEqual(
    englishIn(sample).map((f) => f.replace(/^.*?:\d+ /, '')),
    ["label: 'And this'", 'text "Hard-coded words"', 'aria-label="Also hard-coded"'],
  );
});
