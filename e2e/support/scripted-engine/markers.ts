// The script a request carries: the `[[name:arg]]` markers found in the text of the last user message (chat) or of
// the inputs (embeddings), parsed into one Script that the chat and embeddings handlers follow. The marker list and
// what each does is documented in ../scripted-engine.ts; this file only reads them, so adding a marker starts here.

const MARKER = /\[\[([a-z0-9_]+)(?::([\s\S]*?))?\]\]/g;
const MARKER_WITH_SPACE = /[ \t]*\[\[[a-z0-9_]+(?::[\s\S]*?)?\]\]/g;

export interface Script {
  reply?: string;
  tokens?: number;
  markdown: boolean;
  code: boolean;
  json: boolean;
  echoRequest: boolean;
  echo: boolean;
  think: boolean;
  reasoning: boolean;
  tools: { name: string; args: string }[];
  tools2: boolean;
  slowMs: number;
  delayMs: number;
  failMid: boolean;
  errorMid: boolean;
  status?: number;
  context: boolean;
  hang: boolean;
  cached?: number;
}

/** The text with its markers (and the spaces or tabs before each) removed. */
export function stripMarkers(text: string): string {
  return text.replace(MARKER_WITH_SPACE, '');
}

export function parseScript(text: string): Script {
  const s: Script = {
    markdown: false,
    code: false,
    json: false,
    echoRequest: false,
    echo: false,
    think: false,
    reasoning: false,
    tools: [],
    tools2: false,
    slowMs: 0,
    delayMs: 0,
    failMid: false,
    errorMid: false,
    context: false,
    hang: false,
  };
  for (const [, name, arg = ''] of text.matchAll(MARKER)) {
    const num = Number(arg);
    switch (name) {
      case 'reply':
        s.reply = arg;
        break;
      case 'tokens':
        s.tokens = Math.max(0, Math.floor(num) || 0);
        break;
      case 'markdown':
        s.markdown = true;
        break;
      case 'code':
        s.code = true;
        break;
      case 'json':
        s.json = true;
        break;
      case 'echo_request':
        s.echoRequest = true;
        break;
      case 'echo':
        s.echo = true;
        break;
      case 'think':
        s.think = true;
        break;
      case 'reasoning':
        s.reasoning = true;
        break;
      case 'tool': {
        const colon = arg.indexOf(':');
        s.tools.push(colon < 0 ? { name: arg, args: '{}' } : { name: arg.slice(0, colon), args: arg.slice(colon + 1) });
        break;
      }
      case 'tools2':
        s.tools2 = true;
        break;
      case 'slow':
        s.slowMs = Math.max(0, num || 0);
        break;
      case 'delay':
        s.delayMs = Math.max(0, num || 0);
        break;
      case 'fail_mid':
        s.failMid = true;
        break;
      case 'error_mid':
        s.errorMid = true;
        break;
      case 'status':
        s.status = num >= 200 && num <= 599 ? Math.floor(num) : 500;
        break;
      case 'context':
        s.context = true;
        break;
      case 'hang':
        s.hang = true;
        break;
      case 'cached':
        s.cached = Math.max(0, Math.floor(num) || 0);
        break;
    }
  }
  return s;
}
