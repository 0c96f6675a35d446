// OpenAI chat messages → node-llama-cpp chat history, which the model's chat wrapper (its GGUF Jinja template or
// a built-in wrapper) renders into the prompt.
import type { ChatHistoryItem } from 'node-llama-cpp';
import type { EngineMessage } from '../types.ts';

/** The text of a message: a string, or the text parts of a content array (other parts carry no text). */
export function messageText(content: EngineMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .filter((t) => t.length > 0)
    .join('\n');
}

/**
 * The history for a generation: the messages, then an empty model turn for the wrapper to open. Tool calling is
 * not offered by the llama engine, so tool results arrive as user text and assistant tool calls are dropped.
 */
export function toChatHistory(messages: readonly EngineMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  for (const m of messages) {
    const text = messageText(m.content);
    switch (m.role) {
      case 'system':
      case 'developer':
        history.push({ type: 'system', text });
        break;
      case 'user':
        history.push({ type: 'user', text });
        break;
      case 'tool':
        history.push({ type: 'user', text: m.name ? `${m.name} result: ${text}` : text });
        break;
      case 'assistant':
        history.push({ type: 'model', response: text ? [text] : [] });
        break;
    }
  }
  history.push({ type: 'model', response: [] });
  return history;
}
