// The scan behind components/i18n/no-english.test.ts (every page's words come from the message catalogue): it scans every component and page (components/, app/) and
// lists file:line for English written into the code, so a new string cannot skip translation. What counts:
//   - JSX text ("<p>Saved.</p>"), and a string in a JSX child expression ("{busy ? 'Saving…' : 'Save'}");
//   - a string in a prop or property a person reads (title, aria-label, placeholder, alt, label, hint, …);
//   - anywhere else (a helper's error text, a returned message), a string that reads as prose: a capitalised word and
//     another after it, or words ending in a sentence's punctuation.
// Code is not words: imports, class names, test ids, console output and the strings of the allow-list below.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ERROR_CODES, type ErrorCode } from '../lib/api/errors.ts';

const ROOT = join(import.meta.dirname, '..');

/** Props and properties whose string a person reads (or hears, from a screen reader). */
const WORDY = new Set([
  'label',
  'title',
  'aria-label',
  'aria-description',
  'aria-valuetext',
  'placeholder',
  'description',
  'note',
  'alt',
  'loading',
  'failed',
  'caption',
  'legend',
  'hint',
  'summary',
  'tableLabel',
  'heading',
  'message',
  'confirmLabel',
  'empty',
]);

/**
 * Words that are the same in every language: names (the app's, products', file formats'), units and codes, and
 * values the browser reads rather than shows (`<img loading="lazy">`).
 */
const ALLOWED = new Set(['Lagoon', 'CSV', 'JSON', 'USD', 'DIEM', 'HTTP', 'stdio', 'Base', 'Solana', 'Open WebUI', 'lazy', 'eager']);
/** Code shown as code (a command to type, a snippet's source), and errors thrown only to developers. */
const CODE = new Set([
  'npx lagoon model add',
  'const client = new OpenAI({ baseURL:',
  'not a sealed text',
  'Bearer x', // an Authorization header
  'x min x s', // a wait in units (formatWait)
  'Remove the background', // an image turn's request as the server stores it (lib/images/app-routes.ts)
]);

/** Attributes that hold code, never words, whatever they look like. */
const CODE_ATTRIBUTES = new Set([
  'className',
  'data-testid',
  'testId',
  'id',
  'href',
  'src',
  'type',
  'name',
  'role',
  'rel',
  'target',
  'autoComplete',
  'inputMode',
  'accept',
  'pattern',
  'key',
  'htmlFor',
  'lang',
  'dataKey',
  'stackId',
]);

/** A message key ("sortPopular", "nav.newChat") or an identifier, not words. */
const isKey = (text: string) => /^[a-z]+(\.?[A-Z]?[a-z0-9]+)*$/.test(text) && /[A-Z.]/.test(text);
const hasWords = (text: string) =>
  /[A-Za-z]{2,}/.test(text) && !ALLOWED.has(text.trim()) && !CODE.has(text.trim()) && !isKey(text) && !/^https?:\/\/\S+$/.test(text);
/** Prose: "Could not load", "Saved.", " is empty." — not a code, a path, a class list or an identifier. */
const isProse = (text: string) => {
  const s = text.trim();
  if (!hasWords(s) || /^[\w./:@#-]+$/.test(s) || /^(https?:|\/|\.|[a-z-]+:)/.test(s)) return false;
  return /^[A-Z][a-z’']+(\s+[A-Za-z’'(),:;-]+)+/.test(s) || (/[a-z]\s+[a-z]/.test(s) && /[.!?…:]$/.test(s)) || /^[a-z]+(\s+[a-z’']+){2,}[.!?…]?$/.test(s);
};

type Literal = ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateHead | ts.TemplateMiddle | ts.TemplateTail;
const isLiteral = (n: ts.Node): n is Literal =>
  ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n);

/** The literals an expression shows as it is: through conditionals, `a || b`, `a ?? b`, parentheses and templates. */
function shown(e: ts.Node | undefined, out: Literal[] = []): Literal[] {
  if (!e) return out;
  if (isLiteral(e)) out.push(e);
  else if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e)) shown(e.expression, out);
  else if (ts.isConditionalExpression(e)) shown(e.whenTrue, shown(e.whenFalse, out));
  else if (
    ts.isBinaryExpression(e) &&
    [ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.PlusToken].includes(
      e.operatorToken.kind,
    )
  )
    shown(e.right, e.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken ? out : shown(e.left, out));
  else if (ts.isTemplateExpression(e)) {
    out.push(e.head);
    for (const span of e.templateSpans) out.push(span.literal);
  } else if (ts.isJsxExpression(e)) shown(e.expression, out);
  return out;
}

/** The name of the prop or property a node is the value of, if any. */
function propName(n: ts.Node): string | undefined {
  if (ts.isJsxAttribute(n)) return n.name.getText();
  if (ts.isPropertyAssignment(n) && (ts.isIdentifier(n.name) || ts.isStringLiteral(n.name))) return n.name.text;
  return undefined;
}

/** Inside an import, a console call, a class list or another code attribute: never words. */
function inCode(n: ts.Node): boolean {
  for (let p: ts.Node | undefined = n.parent; p; p = p.parent) {
    if (ts.isImportDeclaration(p) || ts.isExportDeclaration(p) || (ts.isExpressionStatement(p) && ts.isStringLiteral(p.expression))) return true;
    if (
      ts.isCallExpression(p) &&
      /^console\.|^(cn|clsx|require|import)$|\.(startsWith|endsWith|includes|test|match|split|replace|getItem|setItem|querySelector)$/.test(
        p.expression.getText(),
      )
    )
      return true;
    const name = propName(p);
    if (name && CODE_ATTRIBUTES.has(name)) return true;
    if (ts.isBinaryExpression(p) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(p.operatorToken.kind))
      return true;
    if (ts.isCaseClause(p) && p.expression === n) return true;
    if (ts.isLiteralTypeNode(p) || ts.isElementAccessExpression(p) || ts.isComputedPropertyName(p)) return true;
    if (ts.isFunctionLike(p) || ts.isSourceFile(p)) return false;
  }
  return false;
}

export function englishIn(file: string, text = readFileSync(join(ROOT, file), 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.TSX);
  const found = new Map<number, string>();
  const at = (n: ts.Node) => source.getLineAndCharacterOfPosition(n.getStart()).line + 1;
  const report = (n: ts.Node, what: string) => {
    if (!found.has(n.getStart())) found.set(n.getStart(), `${file}:${at(n)} ${what}`);
  };
  const visit = (n: ts.Node) => {
    if (ts.isJsxText(n) && hasWords(n.text)) report(n, `text "${n.text.trim()}"`);
    else if (ts.isJsxExpression(n) && (ts.isJsxElement(n.parent) || ts.isJsxFragment(n.parent))) {
      for (const l of shown(n.expression)) if (hasWords(l.text)) report(l, `text {'${l.text}'}`);
    } else if ((ts.isJsxAttribute(n) || ts.isPropertyAssignment(n)) && WORDY.has(propName(n) ?? '')) {
      const value = ts.isJsxAttribute(n) ? n.initializer : n.initializer;
      for (const l of shown(value)) if (hasWords(l.text) && !inCode(l)) report(l, `${propName(n)}: '${l.text}'`);
    } else if (ts.isTemplateExpression(n)) {
      // A template is judged whole, its ${…} read as a word: "“${name}” is ${size} long; at most ${max}." is prose.
      const whole = [n.head.text, ...n.templateSpans.map((s) => s.literal.text)].join('x');
      if (isProse(whole) && !inCode(n)) report(n, `\`${whole}\``);
      return n.templateSpans.forEach((s) => visit(s.expression));
    } else if (isLiteral(n) && isProse(n.text) && !inCode(n)) report(n, `'${n.text}'`);
    n.forEachChild(visit);
  };
  visit(source);
  return [...found.entries()].sort((a, b) => a[0] - b[0]).map(([, f]) => f);
}

/**
 * The server's error codes a person meets in the chat (sending, regenerating, images, read-aloud): refusals for credit,
 * limits, models and engines, and failures of the model. The browser shows each in the page's language from the
 * catalogue's `apiClient.codes` (components/api/client.ts#errorText), never the server's English. Codes not listed
 * keep the server's text, which names what the user needs and a stored answer's error keeps no other field of: a bad
 * field or file, the models a team allows (MODEL_NOT_ALLOWED_FOR_MEMBER), a member's cap and spend
 * (TEAM_MEMBER_SPEND_LIMIT_EXCEEDED), a provider's reason for refusing (CONTENT_POLICY_VIOLATION).
 */
export const CHAT_ERROR_CODES = [
  'INSUFFICIENT_BALANCE',
  'CREDIT_HELD',
  'RATE_LIMIT_EXCEEDED',
  'TOO_MANY_JOBS',
  'MODEL_NOT_FOUND',
  'CHARACTER_NOT_FOUND',
  'MODEL_AT_CAPACITY',
  'ENGINE_UNAVAILABLE',
  'ENGINE_DOWN',
  'CONTEXT_LENGTH_EXCEEDED',
  'INFERENCE_FAILED',
  'REQUEST_TIMEOUT',
  'MEDIA_STORAGE_FULL',
  'TOO_MANY_CONNECTIONS',
  'PAYLOAD_TOO_LARGE',
  'UNKNOWN_ERROR',
] as const satisfies readonly ErrorCode[];

/** What is wrong with a catalogue's `apiClient.codes`: a chat error code without words, or words for no code. */
export function errorCodeGaps(codes: Record<string, string>): string[] {
  const missing = CHAT_ERROR_CODES.filter((c) => !codes[c]?.trim()).map((c) => `${c}: no words`);
  const unknown = Object.keys(codes)
    .filter((c) => !Object.hasOwn(ERROR_CODES, c))
    .map((c) => `${c}: not a server error code`);
  return [...missing, ...unknown];
}

/** Every component and page: .ts and .tsx under components/ and app/, less tests, fixtures and the catalogue itself. */
export function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !/\.(test|fixture)\.tsx?$|\.d\.ts$/.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .filter((f) => !f.startsWith('components/i18n/'))
    .sort();
}

if (import.meta.main) {
  // `node scripts/english-scan.ts [file…]`: the findings in these files, or a count per file over all of them.
  const args = process.argv.slice(2);
  const found = (args.length ? args : [...sources('components'), ...sources('app')]).flatMap((f) => englishIn(f));
  if (args.length) console.log(found.join('\n'));
  const perFile = new Map<string, number>();
  for (const f of found) perFile.set(f.split(':')[0], (perFile.get(f.split(':')[0]) ?? 0) + 1);
  for (const [f, n] of [...perFile].sort((a, b) => b[1] - a[1])) console.log(`${n}\t${f}`);
  console.log(`${found.length} strings in ${perFile.size} files`);
}
