// The conversation is a tree (edits and regenerations add siblings); the transcript shows one branch of it. Pure
// functions over the flat message list so the row components stay simple and the tree logic is testable.
import type { AppMessage } from '@/lib/wire.ts';

export interface MessageTree {
  byId: Map<string, AppMessage>;
  /** Children of each message id ('' for the roots), oldest first. */
  children: Map<string, AppMessage[]>;
  /** The most recently created message, the default leaf. */
  newest: AppMessage | null;
}

export interface BranchRow {
  message: AppMessage;
  /** 1-based position among its siblings, and how many there are (1 when it has none). */
  siblingIndex: number;
  siblingCount: number;
}

const parentKey = (m: AppMessage): string => m.parentId ?? '';

export function buildTree(messages: readonly AppMessage[]): MessageTree {
  const byId = new Map<string, AppMessage>();
  const children = new Map<string, AppMessage[]>();
  let newest: AppMessage | null = null;
  for (const m of messages) {
    if (m.role === 'system') continue;
    byId.set(m.id, m);
    const key = parentKey(m);
    const list = children.get(key);
    if (list) list.push(m);
    else children.set(key, [m]);
    if (!newest || m.createdAt >= newest.createdAt) newest = m;
  }
  for (const list of children.values()) list.sort((a, b) => a.createdAt - b.createdAt);
  return { byId, children, newest };
}

/** The newest message in the subtree under (and including) `id`: where switching to a sibling lands. */
export function newestLeafUnder(tree: MessageTree, id: string): string {
  let best = tree.byId.get(id);
  if (!best) return id;
  const stack = [best];
  while (stack.length) {
    const m = stack.pop()!;
    if (m.createdAt >= best.createdAt) best = m;
    const kids = tree.children.get(m.id);
    if (kids) stack.push(...kids);
  }
  return best.id;
}

/**
 * The branch from the root to `leafId` (or to the newest message when unset or unknown), continued below the leaf
 * along the newest children, so a chosen leaf that has since grown still shows its latest turn.
 */
export function branchRows(tree: MessageTree, leafId: string | null): BranchRow[] {
  let leaf = (leafId && tree.byId.get(leafId)) || tree.newest;
  if (!leaf) return [];
  for (let kids = tree.children.get(leaf.id); kids?.length; kids = tree.children.get(leaf.id)) {
    leaf = kids.reduce((a, b) => (b.createdAt >= a.createdAt ? b : a));
  }
  const path: AppMessage[] = [];
  const seen = new Set<string>();
  for (let m: AppMessage | undefined = leaf; m && !seen.has(m.id); m = m.parentId ? tree.byId.get(m.parentId) : undefined) {
    seen.add(m.id);
    path.push(m);
  }
  path.reverse();
  return path.map((message) => {
    const siblings = tree.children.get(parentKey(message)) ?? [message];
    return { message, siblingIndex: siblings.indexOf(message) + 1, siblingCount: siblings.length };
  });
}

/** The sibling `step` places away (−1 previous, +1 next) from `id`, or null at either end. */
export function siblingAt(tree: MessageTree, id: string, step: number): string | null {
  const m = tree.byId.get(id);
  if (!m) return null;
  const siblings = tree.children.get(parentKey(m)) ?? [];
  const i = siblings.indexOf(m) + step;
  return i >= 0 && i < siblings.length ? siblings[i].id : null;
}
