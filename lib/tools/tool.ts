// What the chat's tool loop calls: a tool the model may use, described as the OpenAI `tools` entry it becomes, and
// run with bounded time and output. MCP servers' tools and built-in ones take the same shape.

export interface ToolContext {
  /** Aborted when the answer is stopped or the loop's time is up. */
  signal: AbortSignal;
}

export interface ToolResult {
  /** What the model reads back (plain text, already capped). */
  text: string;
  /** The tool reported a failure (the model still reads why). */
  isError: boolean;
  truncated: boolean;
}

export interface Tool {
  /** The function name the model sees: unique within one request, `[a-zA-Z0-9_-]{1,64}`. */
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters: Record<string, unknown>;
  /** The MCP server it belongs to (its name), or null for a built-in. */
  server: string | null;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
}

/** The OpenAI-compatible `tools` entries of a request. */
export const toolsParam = (tools: readonly Tool[]) =>
  tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } }));

/** Text cut to `max` characters (never inside a surrogate pair), with a note the model can read. */
export function capText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return { text: `${text.slice(0, end)}\n[… cut: the result was ${text.length} characters, the limit is ${max}]`, truncated: true };
}

/** A name safe for the model's function list: letters, digits, `_` and `-`, at most 64 characters. */
export function functionName(raw: string): string {
  const name = raw.replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  return (name || 'tool').slice(0, 64);
}
