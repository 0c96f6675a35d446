// Walks over a conversation's message tree (every message, in creation order), done in memory.
import type { Message } from './types.ts';

/** The path from the root to `leafId`, given every message of the conversation in creation order. */
export function pathTo(messages: Message[], leafId: string): Message[] {
  const byId = new Map(messages.map((m) => [m.id, m]));
  const out: Message[] = [];
  let cur = byId.get(leafId);
  while (cur && out.length <= messages.length) {
    out.push(cur);
    cur = cur.parentId === null ? undefined : byId.get(cur.parentId);
  }
  return out.reverse();
}

/** The latest-created message under `rootId` (itself included), which is always a leaf: children follow parents. */
export function latestUnder(messages: Message[], rootId: string): Message {
  const children = new Map<string, Message[]>();
  for (const m of messages) {
    if (m.parentId === null) continue;
    const list = children.get(m.parentId);
    if (list) list.push(m);
    else children.set(m.parentId, [m]);
  }
  const root = messages.find((m) => m.id === rootId) as Message;
  let best = root;
  const stack = [root];
  while (stack.length) {
    const m = stack.pop() as Message;
    if (m.createdAt > best.createdAt || (m.createdAt === best.createdAt && m.id > best.id)) best = m;
    for (const c of children.get(m.id) ?? []) stack.push(c);
  }
  return best;
}

/**
 * The branch through `id` as the chat shows it: the path from the root to `id`, continued below it along the newest
 * reply at each step, so a branch chosen before it grew still ends at its latest turn.
 */
export function branchThrough(messages: Message[], id: string): Message[] {
  const children = new Map<string, Message>();
  for (const m of messages) {
    if (m.parentId === null) continue;
    const best = children.get(m.parentId);
    if (!best || m.createdAt > best.createdAt || (m.createdAt === best.createdAt && m.id > best.id)) children.set(m.parentId, m);
  }
  let leaf = id;
  const seen = new Set<string>();
  for (let next = children.get(leaf); next && !seen.has(next.id); next = children.get(leaf)) {
    seen.add(next.id);
    leaf = next.id;
  }
  return pathTo(messages, leaf);
}
