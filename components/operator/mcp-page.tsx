'use client';
// The operator tools page (/operator/tools; the first user only): the MCP servers whose tools users may switch on
// per chat. Add one (streamable HTTP, or a program over stdio where LAGOON_MCP_STDIO allows), test it (its tools),
// replace its header, switch it off or remove it. Header values are sealed on the server and never shown again;
// every change is audited.
// data-testid: operator-tools-page, mcp-row (data-name, data-enabled), mcp-test, mcp-toggle, mcp-headers, mcp-remove,
// mcp-tools, mcp-error, mcp-headers-dialog, mcp-header-name, mcp-header-value, mcp-header-save, add-mcp-name,
// add-mcp-transport, add-mcp-url, add-mcp-command, add-mcp-args, add-mcp-header-name, add-mcp-header-value,
// add-mcp-submit, add-mcp-error.
import { useTranslations } from 'use-intl';
import Link from 'next/link';
import { type FormEvent, useId, useState } from 'react';
import { DashPage } from '@/components/billing/dash-page.tsx';
import {
  useAddMcpServer,
  useMcpServers,
  useRemoveMcpServer,
  useSetMcpHeaders,
  useTestMcpServer,
  useToggleMcpServer,
} from '@/components/operator/mcp-queries.ts';
import { useMe } from '@/components/session/use-me.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Dialog } from '@/components/ui/dialog.tsx';
import { InputField, SelectField } from '@/components/ui/fields.tsx';
import { LoadError } from '@/components/ui/query-state.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { DataTable, TD } from '@/components/ui/table.tsx';
import { Section } from '@/components/usage/section.tsx';
import type { AppMcpServer, McpTransport } from '@/lib/wire.ts';

/** Replaces the server's header (sealed on the server; the old value is never shown), or removes its headers. */
function HeadersDialog({ server, onClose }: { server: AppMcpServer; onClose: () => void }) {
  const t = useTranslations('mcp');
  const id = useId();
  const save = useSetMcpHeaders();
  const [name, setName] = useState(server.headerNames[0] ?? 'Authorization');
  const [value, setValue] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ id: server.id, headers: { [name.trim()]: value } }, { onSuccess: onClose });
  };
  return (
    <Dialog open onClose={onClose} title={t('headerOf', { server: server.name })} description={t('headerNote')} testId="mcp-headers-dialog">
      <form onSubmit={submit} className="flex flex-col gap-3">
        <InputField id={`${id}-n`} label={t('header')} required value={name} onChange={(e) => setName(e.target.value)} data-testid="mcp-header-name" />
        <InputField
          id={`${id}-v`}
          label={t('value')}
          type="password"
          autoComplete="off"
          required
          value={value}
          onChange={(e) => setValue(e.target.value)}
          data-testid="mcp-header-value"
        />
        {save.isError && <Alert>{save.error.message}</Alert>}
        <div className="flex flex-wrap gap-2">
          <Button type="submit" size="sm" pending={save.isPending} data-testid="mcp-header-save">
            {t('save')}
          </Button>
          {server.headerNames.length > 0 && (
            <Button variant="secondary" size="sm" onClick={() => save.mutate({ id: server.id, headers: null }, { onSuccess: onClose })}>
              {t('removeHeaders')}
            </Button>
          )}
          <Button variant="ghost" size="sm" onClick={onClose}>
            {t('cancel')}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

/** Examples and names in the form, the same in every language. */
const TOOL_PATTERN = '<name>__<tool>';
const EXAMPLE_URL = 'https://mcp.example.com/mcp';
const EXAMPLE_HEADER = 'Authorization';
const EXAMPLE_PROGRAM = 'npx';

const where = (s: AppMcpServer) => (s.transport === 'http' ? (s.url ?? '') : [s.command ?? '', ...s.args].join(' '));

function Servers() {
  const t = useTranslations('mcp');
  const q = useMcpServers();
  const toggle = useToggleMcpServer();
  const remove = useRemoveMcpServer();
  const test = useTestMcpServer();
  const [editing, setEditing] = useState<AppMcpServer | null>(null);
  if (q.isPending) return <Spinner label={t('loading')} className="size-5" />;
  if (q.isError) return <LoadError title={t('failed')} error={q.error} onRetry={q.refetch} />;
  const failed = toggle.error ?? remove.error ?? test.error;
  if (!q.data.servers.length) return <p className="text-sm text-muted-foreground">{t('none')}</p>;
  return (
    <div className="flex flex-col gap-3">
      {failed && <Alert data-testid="mcp-error">{failed.message}</Alert>}
      <DataTable label={t('servers')} caption={t('caption')} columns={[{ label: t('server') }, { label: t('where') }, { label: t('actions') }]}>
        {q.data.servers.map((s) => (
          <tr key={s.id} className="border-t border-border align-top" data-testid="mcp-row" data-name={s.name} data-enabled={s.enabled}>
            <th scope="row" className={`${TD} text-left font-medium`}>
              {s.name}
              <span className="block text-xs font-normal text-muted-foreground">
                {s.transport === 'http' ? 'HTTP' : 'stdio'}
                {s.enabled ? '' : t('off')}
                {s.headerNames.length ? t('headers', { names: s.headerNames.join(', ') }) : ''}
              </span>
            </th>
            <td className="max-w-80 px-3 py-2 font-mono text-xs break-all text-muted-foreground">
              {where(s)}
              {test.data && test.variables === s.id && (
                <span data-testid="mcp-tools" className="mt-1 block font-sans">
                  {test.data.ok
                    ? t('tools', { ms: test.data.ms, names: test.data.tools.map((tool) => tool.name).join(', ') || t('noTools') })
                    : t('testFailed', { error: String(test.data.error) })}
                </span>
              )}
            </td>
            <td className="px-3 py-2">
              <div className="flex flex-wrap gap-1.5">
                <Button
                  size="sm"
                  variant="secondary"
                  pending={test.isPending && test.variables === s.id}
                  onClick={() => test.mutate(s.id)}
                  data-testid="mcp-test"
                >
                  {t('test')}
                </Button>
                <Button
                  size="sm"
                  variant={s.enabled ? 'danger' : 'secondary'}
                  onClick={() => toggle.mutate({ id: s.id, enabled: !s.enabled })}
                  data-testid="mcp-toggle"
                  aria-label={t(s.enabled ? 'switchOffLabel' : 'switchOnLabel', { server: s.name })}
                >
                  {s.enabled ? t('switchOff') : t('switchOn')}
                </Button>
                {s.transport === 'http' && (
                  <Button size="sm" variant="secondary" onClick={() => setEditing(s)} data-testid="mcp-headers" aria-label={t('headerOf', { server: s.name })}>
                    {t('header')}
                  </Button>
                )}
                <Button
                  size="sm"
                  variant="ghost"
                  onClick={() => remove.mutate(s.id)}
                  data-testid="mcp-remove"
                  aria-label={t('removeLabel', { server: s.name })}
                >
                  {t('remove')}
                </Button>
              </div>
            </td>
          </tr>
        ))}
      </DataTable>
      {editing && <HeadersDialog server={editing} onClose={() => setEditing(null)} />}
    </div>
  );
}

function AddServerForm({ stdioAllowed }: { stdioAllowed: boolean }) {
  const t = useTranslations('mcp');
  const id = useId();
  const add = useAddMcpServer();
  const [f, setF] = useState({ name: '', transport: 'http' as McpTransport, url: '', command: '', args: '', headerName: '', headerValue: '' });
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF((v) => ({ ...v, [k]: e.target.value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const headers = f.headerName.trim() && f.headerValue ? { [f.headerName.trim()]: f.headerValue } : undefined;
    add.mutate(
      f.transport === 'http'
        ? { name: f.name.trim(), transport: 'http', url: f.url.trim(), ...(headers ? { headers } : {}) }
        : { name: f.name.trim(), transport: 'stdio', command: f.command.trim(), args: f.args.trim() ? f.args.trim().split(/\s+/) : [] },
      { onSuccess: () => setF((v) => ({ ...v, name: '', url: '', command: '', args: '', headerValue: '' })) },
    );
  };
  return (
    <form onSubmit={submit} className="flex flex-col gap-3" aria-label={t('addTitle')}>
      <div className="grid gap-3 sm:grid-cols-2">
        <InputField
          id={`${id}-name`}
          label={t('name')}
          required
          value={f.name}
          onChange={set('name')}
          hint={t('nameHint', { pattern: TOOL_PATTERN })}
          data-testid="add-mcp-name"
        />
        <SelectField id={`${id}-transport`} label={t('transport')} value={f.transport} onChange={set('transport')} data-testid="add-mcp-transport">
          <option value="http">{t('http')}</option>
          <option value="stdio" disabled={!stdioAllowed}>
            {stdioAllowed ? t('stdio') : t('stdioOff', { setting: 'LAGOON_MCP_STDIO' })}
          </option>
        </SelectField>
        {f.transport === 'http' ? (
          <>
            <InputField
              id={`${id}-url`}
              label={t('url')}
              required
              placeholder={EXAMPLE_URL}
              value={f.url}
              onChange={set('url')}
              hint={t('urlHint', { setting: 'LAGOON_FETCH_ALLOW_HOSTS' })}
              data-testid="add-mcp-url"
            />
            <div className="grid grid-cols-2 gap-2">
              <InputField
                id={`${id}-hn`}
                label={t('headerOptional')}
                placeholder={EXAMPLE_HEADER}
                value={f.headerName}
                onChange={set('headerName')}
                data-testid="add-mcp-header-name"
              />
              <InputField
                id={`${id}-hv`}
                label={t('value')}
                type="password"
                autoComplete="off"
                value={f.headerValue}
                onChange={set('headerValue')}
                hint={t('valueHint')}
                data-testid="add-mcp-header-value"
              />
            </div>
          </>
        ) : (
          <>
            <InputField
              id={`${id}-cmd`}
              label={t('program')}
              required
              placeholder={EXAMPLE_PROGRAM}
              value={f.command}
              onChange={set('command')}
              data-testid="add-mcp-command"
            />
            <InputField id={`${id}-args`} label={t('args')} value={f.args} onChange={set('args')} data-testid="add-mcp-args" />
          </>
        )}
      </div>
      {add.isError && <Alert data-testid="add-mcp-error">{add.error.message}</Alert>}
      <div>
        <Button type="submit" size="sm" pending={add.isPending} data-testid="add-mcp-submit">
          {t('add')}
        </Button>
      </div>
    </form>
  );
}

export function OperatorToolsPage() {
  const t = useTranslations('mcp');
  const user = useMe().data?.user;
  const operator = Boolean(user?.isAdmin && !user.wallet);
  const q = useMcpServers();
  return (
    <DashPage title={t('title')} description={t('description')} current="/operator" testId="operator-tools-page">
      {!operator ? (
        <Alert tone="info" data-testid="operator-only">
          {t('only')}
        </Alert>
      ) : (
        <>
          <p className="text-sm">
            <Link href="/operator" className="font-medium text-primary underline-offset-4 hover:underline">
              {t('accountsLink')}
            </Link>
          </p>
          <Section id="operator-mcp" title={t('servers')}>
            <Servers />
          </Section>
          <Section id="operator-add-mcp" title={t('addTitle')}>
            <AddServerForm stdioAllowed={q.data?.stdioAllowed ?? false} />
          </Section>
        </>
      )}
    </DashPage>
  );
}
