// The operator tools page's server state: the MCP servers, and adding, switching, testing and removing one. Each
// change refreshes the list, the audit log and the tools a chat can switch on.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '@/components/api/client.ts';
import type { McpServerInput } from '@/lib/wire.ts';

const KEY = ['operator', 'mcp-servers'] as const;

export function useMcpServers() {
  return useQuery({ queryKey: KEY, queryFn: ({ signal }) => call('GET /operator/mcp-servers', { signal }) });
}

function useRefresh() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: ['operator'] });
    void qc.invalidateQueries({ queryKey: ['tools'] });
  };
}

export function useAddMcpServer() {
  const refresh = useRefresh();
  return useMutation({ mutationFn: (body: McpServerInput) => call('POST /operator/mcp-servers', { body }), onSuccess: refresh });
}

export function useToggleMcpServer() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) => call('PATCH /operator/mcp-servers/:id', { params: { id }, body: { enabled } }),
    onSuccess: refresh,
  });
}

export function useSetMcpHeaders() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ id, headers }: { id: string; headers: Record<string, string> | null }) =>
      call('PATCH /operator/mcp-servers/:id', { params: { id }, body: { headers } }),
    onSuccess: refresh,
  });
}

export function useRemoveMcpServer() {
  const refresh = useRefresh();
  return useMutation({ mutationFn: (id: string) => call('DELETE /operator/mcp-servers/:id', { params: { id } }), onSuccess: refresh });
}

export function useTestMcpServer() {
  return useMutation({ mutationFn: (id: string) => call('POST /operator/mcp-servers/:id/test', { params: { id } }) });
}
