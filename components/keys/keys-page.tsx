'use client';
// The API keys page (/keys): create a key (the secret shown once), the account's keys with their spend against their
// caps, edit and revoke, and how to use a key from curl or the openai client.
// data-testid: keys-page, use-key (plus create-key.tsx's and key-list.tsx's).
import { useTranslations } from 'use-intl';
import { DashPage } from '@/components/billing/dash-page.tsx';
import { CreateKey } from '@/components/keys/create-key.tsx';
import { KeyList } from '@/components/keys/key-list.tsx';
import { useDefaultModel, useKeysReport } from '@/components/keys/queries.ts';
import { Snippets } from '@/components/keys/snippets.tsx';
import { QueryContent } from '@/components/ui/query-state.tsx';
import { Section } from '@/components/usage/section.tsx';

export function KeysPage() {
  const t = useTranslations('keys');
  const report = useKeysReport();
  const model = useDefaultModel();
  return (
    <DashPage title={t('title')} description={t('description')} current="/keys" testId="keys-page">
      <QueryContent query={report} loading={t('loading')} failed={t('failed')}>
        {(data) => (
          <>
            <Section id="keys-create" title={t('create')}>
              <CreateKey report={data} />
            </Section>
            <Section id="keys-list" title={t('yours')} note={t('secretOnce')}>
              <KeyList keys={data.keys} descriptionMax={data.descriptionMax} />
            </Section>
          </>
        )}
      </QueryContent>
      <Section id="keys-use" title={t('use')} note={t('useNote')}>
        <Snippets model={model} secret={null} testId="use-key" />
      </Section>
    </DashPage>
  );
}
