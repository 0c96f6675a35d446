import type { Metadata } from 'next';
import { PrivatePage } from '@/components/private/private-page.tsx';

export const metadata: Metadata = { title: 'Private chats' };

export default function Page() {
  return <PrivatePage />;
}
