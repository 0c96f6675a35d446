'use client';
// The teams page: make a team; for the team the session acts for, its members (admins set each one's role, spend cap
// and model list, or remove them), invitations by link or by mail, and the owner's transfers of credit between their
// own balance and the team's. A member sees only themselves.
// data-testid: teams-page, team-name, create-team, team-balance, member-row (data-user), member-cap, member-models,
// member-save, member-remove, invite-role, invite-email, create-invite, invite-link, transfer-usd, transfer-to-team,
// transfer-to-personal, teams-error.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { useTranslations } from 'use-intl';
import { call } from '@/components/api/client.ts';
import { TEAMS_QUERY } from '@/components/teams/account-switcher.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { InputField, SelectField } from '@/components/ui/fields.tsx';
import type { TeamDetail, TeamMemberView } from '@/lib/wire.ts';

const detailKey = (id: string) => ['teams', id] as const;

function CreateTeam() {
  const t = useTranslations('teams');
  const id = useId();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: async () => {
      const team = await call('POST /teams', { body: { name } });
      await call('POST /teams/switch', { body: { accountId: team.accountId } });
    },
    onSuccess: () => qc.resetQueries(),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-2 rounded-xl border border-border bg-card p-4">
      <InputField
        id={id}
        label={t('newTeam')}
        value={name}
        onChange={(e) => setName(e.target.value)}
        maxLength={80}
        data-testid="team-name"
        className="flex-1"
      />
      <Button type="submit" pending={create.isPending} disabled={!name.trim()} data-testid="create-team">
        {t('create')}
      </Button>
      {create.isError && <Alert tone="error">{create.error.message}</Alert>}
    </form>
  );
}

function MemberRow({ teamId, m, canEdit, canRemove }: { teamId: string; m: TeamMemberView; canEdit: boolean; canRemove: boolean }) {
  const t = useTranslations('teams');
  const qc = useQueryClient();
  const [cap, setCap] = useState(m.capUsd === null ? '' : String(m.capUsd));
  const [models, setModels] = useState((m.models ?? []).join(', '));
  const params = { id: teamId, userId: m.userId };
  const save = useMutation({
    mutationFn: () =>
      call('PATCH /teams/:id/members/:userId', {
        params,
        body: {
          capUsd: cap.trim() === '' ? null : Number(cap),
          models:
            models.trim() === ''
              ? null
              : models
                  .split(',')
                  .map((s) => s.trim())
                  .filter(Boolean),
        },
      }),
    onSuccess: () => qc.invalidateQueries({ queryKey: detailKey(teamId) }),
  });
  const remove = useMutation({
    mutationFn: () => call('DELETE /teams/:id/members/:userId', { params }),
    onSuccess: () => qc.invalidateQueries({ queryKey: detailKey(teamId) }),
  });
  return (
    <li data-testid="member-row" data-user={m.email} className="flex flex-col gap-2 rounded-lg border border-border p-3">
      <div className="flex flex-wrap items-baseline gap-2">
        <span className="font-medium">{m.displayName || m.email}</span>
        <span className="text-xs text-muted-foreground">{t(`role.${m.role}`)}</span>
        <span className="ms-auto text-xs text-muted-foreground">{t('spent', { usd: m.spentUsd.toFixed(4), period: t(`period.${m.capPeriod}`) })}</span>
      </div>
      {canEdit && m.role !== 'owner' ? (
        <div className="flex flex-wrap items-end gap-2">
          <InputField
            id={`cap-${m.userId}`}
            label={t('cap')}
            type="number"
            min={0}
            step="0.000001"
            value={cap}
            onChange={(e) => setCap(e.target.value)}
            hint={t('capHint')}
            data-testid="member-cap"
          />
          <InputField
            id={`models-${m.userId}`}
            label={t('models')}
            value={models}
            onChange={(e) => setModels(e.target.value)}
            hint={t('modelsHint')}
            data-testid="member-models"
          />
          <Button onClick={() => save.mutate()} pending={save.isPending} data-testid="member-save">
            {t('save')}
          </Button>
          {canRemove && (
            <Button variant="ghost" onClick={() => remove.mutate()} pending={remove.isPending} data-testid="member-remove">
              {t('remove')}
            </Button>
          )}
        </div>
      ) : (
        <p className="text-sm text-muted-foreground">
          {m.capUsd === null ? t('noCap') : t('capIs', { usd: String(m.capUsd), period: t(`period.${m.capPeriod}`) })} ·{' '}
          {m.models === null ? t('anyModel') : m.models.join(', ')}
        </p>
      )}
      {(save.isError || remove.isError) && (
        <Alert tone="error" data-testid="teams-error">
          {(save.error ?? remove.error)?.message}
        </Alert>
      )}
    </li>
  );
}

function Invite({ teamId, owner, mail }: { teamId: string; owner: boolean; mail: boolean }) {
  const t = useTranslations('teams');
  const id = useId();
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const [email, setEmail] = useState('');
  const invite = useMutation({
    mutationFn: () => call('POST /teams/:id/invites', { params: { id: teamId }, body: { role, email: email.trim() || null } }),
  });
  return (
    <section className="flex flex-col gap-2 rounded-xl border border-border bg-card p-4">
      <h2 className="text-lg font-semibold">{t('invite')}</h2>
      <div className="flex flex-wrap items-end gap-2">
        <SelectField
          id={`${id}-role`}
          label={t('roleLabel')}
          value={role}
          onChange={(e) => setRole(e.target.value as 'member' | 'admin')}
          data-testid="invite-role"
        >
          <option value="member">{t('role.member')}</option>
          {owner && <option value="admin">{t('role.admin')}</option>}
        </SelectField>
        {mail && (
          <InputField
            id={`${id}-email`}
            label={t('inviteEmail')}
            type="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            data-testid="invite-email"
          />
        )}
        <Button onClick={() => invite.mutate()} pending={invite.isPending} data-testid="create-invite">
          {t('createInvite')}
        </Button>
      </div>
      {invite.data && (
        <p className="text-sm">
          {invite.data.mailed ? t('mailed') : t('shareLink')}{' '}
          <code data-testid="invite-link" className="break-all">
            {invite.data.link}
          </code>
        </p>
      )}
      {invite.isError && <Alert tone="error">{invite.error.message}</Alert>}
    </section>
  );
}

function Transfer({ teamId }: { teamId: string }) {
  const t = useTranslations('teams');
  const id = useId();
  const qc = useQueryClient();
  const [usd, setUsd] = useState('');
  const move = useMutation({
    // One id per click: a retry of the same request moves nothing twice.
    mutationFn: (direction: 'to_team' | 'to_personal') =>
      call('POST /teams/:id/transfer', { params: { id: teamId }, body: { id: crypto.randomUUID(), direction, usd: Number(usd) } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: detailKey(teamId) }),
  });
  return (
    <section className="flex flex-col gap-2 rounded-xl border border-border bg-card p-4">
      <h2 className="text-lg font-semibold">{t('transfer')}</h2>
      <div className="flex flex-wrap items-end gap-2">
        <InputField
          id={id}
          label={t('amount')}
          type="number"
          min={0}
          step="0.01"
          value={usd}
          onChange={(e) => setUsd(e.target.value)}
          data-testid="transfer-usd"
        />
        <Button onClick={() => move.mutate('to_team')} pending={move.isPending} disabled={!(Number(usd) > 0)} data-testid="transfer-to-team">
          {t('toTeam')}
        </Button>
        <Button
          variant="ghost"
          onClick={() => move.mutate('to_personal')}
          pending={move.isPending}
          disabled={!(Number(usd) > 0)}
          data-testid="transfer-to-personal"
        >
          {t('toPersonal')}
        </Button>
      </div>
      {move.isError && <Alert tone="error">{move.error.message}</Alert>}
    </section>
  );
}

function ActiveTeam({ detail, mail }: { detail: TeamDetail; mail: boolean }) {
  const t = useTranslations('teams');
  const role = detail.team.role;
  const admin = role !== 'member';
  return (
    <div className="flex flex-col gap-4">
      <section className="flex flex-col gap-2 rounded-xl border border-border bg-card p-4">
        <h2 className="text-lg font-semibold">{detail.team.name}</h2>
        <p className="text-sm" data-testid="team-balance">
          {t('balance', { usd: detail.balanceUsd.toFixed(2) })}
        </p>
        <ul className="flex flex-col gap-2">
          {detail.members.map((m) => (
            <MemberRow key={m.userId} teamId={detail.team.accountId} m={m} canEdit={admin} canRemove={admin} />
          ))}
        </ul>
      </section>
      {admin && <Invite teamId={detail.team.accountId} owner={role === 'owner'} mail={mail} />}
      {role === 'owner' && <Transfer teamId={detail.team.accountId} />}
    </div>
  );
}

export function TeamsPage() {
  const t = useTranslations('teams');
  const teams = useQuery({ queryKey: TEAMS_QUERY, queryFn: () => call('GET /teams') });
  const activeId = teams.data?.active?.accountId;
  const detail = useQuery({
    queryKey: detailKey(activeId ?? ''),
    queryFn: () => call('GET /teams/:id', { params: { id: activeId! } }),
    enabled: Boolean(activeId),
  });
  return (
    <main className="mx-auto flex w-full max-w-3xl flex-col gap-4 p-4" data-testid="teams-page">
      <h1 className="text-2xl font-semibold">{t('title')}</h1>
      <p className="text-sm text-muted-foreground">{activeId ? t('actingFor', { name: teams.data?.active?.name ?? '' }) : t('actingPersonal')}</p>
      {detail.data && <ActiveTeam detail={detail.data} mail={teams.data?.mail ?? false} />}
      <CreateTeam />
    </main>
  );
}
