// The branch on screen: the tree built from the flat message list, the chosen leaf (remembered per chat across
// reloads), and ‹ n/m › switching (which lands on the newest message under the chosen sibling).
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { AppMessage } from '@/lib/wire.ts';
import { rememberedLeaf, rememberLeaf } from './branch-memory.ts';
import { branchRows, buildTree, newestLeafUnder, siblingAt } from './message-tree.ts';

const NO_MESSAGES: AppMessage[] = [];

export function useBranch(conversationId: string | null, messages: AppMessage[] | undefined) {
  const [leafId, setLeaf] = useState<string | null>(() => rememberedLeaf(conversationId));
  const tree = useMemo(() => buildTree(messages ?? NO_MESSAGES), [messages]);
  const rows = useMemo(() => branchRows(tree, leafId), [tree, leafId]);
  const treeRef = useRef(tree);
  treeRef.current = tree;
  // A new chat gets its id with its first message: the id arrives here through the ref, not a remount.
  const idRef = useRef(conversationId);
  idRef.current = conversationId;
  const setLeafId = useCallback((id: string | null) => {
    setLeaf(id);
    if (idRef.current) rememberLeaf(idRef.current, id);
  }, []);
  // A remembered leaf that is no longer in the chat (deleted elsewhere) is forgotten, so exports stop naming it.
  useEffect(() => {
    if (messages && leafId && !tree.byId.has(leafId)) setLeafId(null);
  }, [messages, leafId, tree, setLeafId]);
  const switchSibling = useCallback(
    (id: string, step: -1 | 1) => {
      const sibling = siblingAt(treeRef.current, id, step);
      if (sibling) setLeafId(newestLeafUnder(treeRef.current, sibling));
    },
    [setLeafId],
  );
  return { rows, setLeafId, switchSibling };
}
