// The branch on screen: the tree built from the flat message list, the chosen leaf, and ‹ n/m › switching (which
// lands on the newest message under the chosen sibling).
import { useCallback, useMemo, useRef, useState } from 'react';
import type { AppMessage } from '@/lib/wire.ts';
import { branchRows, buildTree, newestLeafUnder, siblingAt } from './message-tree.ts';

const NO_MESSAGES: AppMessage[] = [];

export function useBranch(messages: AppMessage[] | undefined) {
  const [leafId, setLeafId] = useState<string | null>(null);
  const tree = useMemo(() => buildTree(messages ?? NO_MESSAGES), [messages]);
  const rows = useMemo(() => branchRows(tree, leafId), [tree, leafId]);
  const treeRef = useRef(tree);
  treeRef.current = tree;
  const switchSibling = useCallback((id: string, step: -1 | 1) => {
    const sibling = siblingAt(treeRef.current, id, step);
    if (sibling) setLeafId(newestLeafUnder(treeRef.current, sibling));
  }, []);
  return { rows, setLeafId, switchSibling };
}
