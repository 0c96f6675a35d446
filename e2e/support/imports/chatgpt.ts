// A ChatGPT export (`conversations.json`) as ChatGPT writes it: each chat a `mapping` of nodes with parents and
// children, hidden system context, a tool message, an image part, and an edited first message (two branches).
export function chatgptExport() {
  const node = (id: string, parent: string | null, children: string[], message: unknown) => ({ id, parent, children, message });
  const msg = (role: string, parts: unknown[], t: number, extra: Record<string, unknown> = {}) => ({
    id: `m-${t}`,
    author: { role },
    content: { content_type: 'text', parts },
    create_time: t,
    metadata: {},
    ...extra,
  });
  return [
    {
      title: 'Tide pools',
      create_time: 1_700_000_000,
      update_time: 1_700_000_500,
      current_node: 'a2',
      mapping: {
        root: node('root', null, ['sys'], null),
        sys: node('sys', 'root', ['u1', 'u1b'], msg('system', [''], 1_700_000_001, { metadata: { is_visually_hidden_from_conversation: true } })),
        u1: node('u1', 'sys', ['a1'], msg('user', ['What lives in a tide pool?'], 1_700_000_010)),
        a1: node('a1', 'u1', ['t1'], msg('assistant', ['Anemones, crabs and sea stars.'], 1_700_000_020)),
        t1: node('t1', 'a1', ['u2'], msg('tool', ['(search results)'], 1_700_000_025)),
        u2: node('u2', 't1', [], {
          ...msg('user', ['And this one?', { content_type: 'image_asset_pointer', asset_pointer: 'file-service://x' }], 1_700_000_030),
          content: { content_type: 'multimodal_text', parts: ['And this one?', { content_type: 'image_asset_pointer', asset_pointer: 'file-service://x' }] },
        }),
        u1b: node('u1b', 'sys', ['a2'], msg('user', ['What lives in a rock pool?'], 1_700_000_040)),
        a2: node('a2', 'u1b', [], msg('assistant', ['Mostly the same creatures.'], 1_700_000_050)),
      },
    },
    { title: 'Empty', create_time: 1_700_001_000, update_time: 1_700_001_000, mapping: { root: node('root', null, [], null) } },
  ];
}
