'use client';
// The API keys page (/keys): create a key (the secret shown once), the account's keys with their spend against their
// caps, edit and revoke, and how to use a key from curl or the openai client.
// data-testid: keys-page, use-key (plus create-key.tsx's and key-list.tsx's).
import { DashPage } from '@/components/billing/dash-page.tsx';
import { CreateKey } from '@/components/keys/create-key.tsx';
import { KeyList } from '@/components/keys/key-list.tsx';
import { useDefaultModel, useKeysReport } from '@/components/keys/queries.ts';
import { Snippets } from '@/components/keys/snippets.tsx';
import { QueryContent } from '@/components/ui/query-state.tsx';
import { Section } from '@/components/usage/section.tsx';

export function KeysPage() {
  const report = useKeysReport();
  const model = useDefaultModel();
  return (
    <DashPage
      title="API keys"
      description="Keys let your own programs use this server's API with your account's credit. Give each program its own key, capped to what it may spend."
      current="/keys"
      testId="keys-page"
    >
      <QueryContent query={report} loading="Loading your keys" failed="Could not load your keys">
        {(data) => (
          <>
            <Section id="keys-create" title="Create a key">
              <CreateKey report={data} />
            </Section>
            <Section id="keys-list" title="Your keys" note="A key's secret is shown once, when it is created, and never again.">
              <KeyList keys={data.keys} descriptionMax={data.descriptionMax} />
            </Section>
          </>
        )}
      </QueryContent>
      <Section id="keys-use" title="Use a key" note="Any OpenAI-compatible client works: point it at this server and give it your key.">
        <Snippets model={model} secret={null} testId="use-key" />
      </Section>
    </DashPage>
  );
}
