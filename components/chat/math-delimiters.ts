// Models write inline math as `$…$` or `\(…\)` and display math as `\[…\]`; the math plugin only reads `$$`
// (single dollars are off there so prices like "$5 and $10" stay text). This rewrites the TeX forms to `$$` in
// the raw markdown — before parsing, so markdown escapes cannot eat the TeX backslashes — using pandoc's rule for
// `$`: the opener is followed by a non-space, the closer preceded by a non-space and not followed by a digit, on
// the same line. Fenced code, inline code, escaped dollars and existing `$$` spans are copied untouched.

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function normaliseMathDelimiters(text: string): string {
  if (!text.includes('$') && !text.includes('\\(') && !text.includes('\\[')) return text;
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const f = FENCE.exec(line);
    if (fence) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length && line.trim() === f[1]) fence = null;
      out.push(line);
    } else if (f) {
      fence = f[1];
      out.push(line);
    } else {
      out.push(rewriteLine(line));
    }
  }
  return out.join('\n');
}

function rewriteLine(line: string): string {
  const display = /^(\s*)\\\[(.+)\\\]\s*$/.exec(line);
  if (display) return `${display[1]}$$${display[2]}$$`;
  let out = '';
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === '`') {
      const run = /^`+/.exec(line.slice(i))![0];
      const end = line.indexOf(run, i + run.length);
      const stop = end === -1 ? i + run.length : end + run.length;
      out += line.slice(i, stop);
      i = stop;
    } else if (c === '\\' && line[i + 1] === '(') {
      const end = line.indexOf('\\)', i + 2);
      if (end === -1) {
        out += line.slice(i);
        break;
      }
      out += `$$${line.slice(i + 2, end)}$$`;
      i = end + 2;
    } else if (c === '\\') {
      out += line.slice(i, i + 2);
      i += 2;
    } else if (c === '$' && line[i + 1] === '$') {
      const end = line.indexOf('$$', i + 2);
      const stop = end === -1 ? line.length : end + 2;
      out += line.slice(i, stop);
      i = stop;
    } else if (c === '$') {
      const end = closingDollar(line, i);
      if (end === -1) {
        out += c;
        i++;
      } else {
        out += `$$${line.slice(i + 1, end)}$$`;
        i = end + 1;
      }
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Index of the `$` closing the one at `open`, or -1 when it does not open math. */
function closingDollar(line: string, open: number): number {
  const first = line[open + 1];
  if (first === undefined || /\s/.test(first)) return -1;
  for (let j = open + 1; j < line.length; j++) {
    if (line[j] === '\\') {
      j++;
      continue;
    }
    if (line[j] !== '$') continue;
    if (/\s/.test(line[j - 1]) || /[0-9]/.test(line[j + 1] ?? '')) return -1;
    return j;
  }
  return -1;
}
