// A shared chat (/s/<token>): public, read-only, never indexed. The server has already said whether the link is live
// (the x-lagoon-share request header, set by lib/http/server.ts only): a revoked one is a 404 with the not-found page.
import { headers } from 'next/headers';
import { notFound } from 'next/navigation';
import { titleMetadata } from '@/components/i18n/server.ts';
import { SharedChat } from '@/components/share/shared-chat.tsx';

export const generateMetadata = titleMetadata('sharedChat', { robots: { index: false, follow: false } });

export default async function SharedChatPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  if ((await headers()).get('x-lagoon-share') === 'gone') notFound();
  return <SharedChat token={token} />;
}
