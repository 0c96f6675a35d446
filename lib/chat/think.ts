// Splits legacy in-content `<think>…</think>` blocks from answer text, also when a tag arrives split across
// stream chunks: text that might be the start of a tag is held back until the next chunk decides it.

const OPEN = '<think>';
const CLOSE = '</think>';

export interface Split {
  content: string;
  reasoning: string;
}

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialTagAt(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) if (text.endsWith(tag.slice(0, n))) return n;
  return 0;
}

export class ThinkSplitter {
  private inThink = false;
  private pending = '';
  /** Set after `</think>`: the whitespace models put between the blocks belongs to neither part. */
  private stripLeading = false;

  push(chunk: string): Split {
    let text = this.pending + chunk;
    this.pending = '';
    const out: Split = { content: '', reasoning: '' };
    while (text) {
      const tag = this.inThink ? CLOSE : OPEN;
      const at = text.indexOf(tag);
      if (at >= 0) {
        this.emit(out, text.slice(0, at));
        this.inThink = !this.inThink;
        if (!this.inThink) this.stripLeading = true;
        text = text.slice(at + tag.length);
        continue;
      }
      const keep = partialTagAt(text, tag);
      this.emit(out, text.slice(0, text.length - keep));
      this.pending = text.slice(text.length - keep);
      break;
    }
    return out;
  }

  /** Whatever is still held back, at the end of the stream. */
  flush(): Split {
    const out: Split = { content: '', reasoning: '' };
    this.emit(out, this.pending);
    this.pending = '';
    return out;
  }

  private emit(out: Split, text: string) {
    if (!text) return;
    if (this.inThink) out.reasoning += text;
    else {
      if (this.stripLeading) {
        text = text.replace(/^\s+/, '');
        if (!text) return;
        this.stripLeading = false;
      }
      out.content += text;
    }
  }
}

export function splitThink(text: string): Split {
  const s = new ThinkSplitter();
  const a = s.push(text);
  const b = s.flush();
  return { content: a.content + b.content, reasoning: a.reasoning + b.reasoning };
}
