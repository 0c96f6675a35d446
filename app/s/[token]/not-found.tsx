'use client';
// A revoked or unknown share link: said in the app's frame (the sidebar for a signed-in reader), with status 404.
import { usePathname } from 'next/navigation';
import { SharedFrame } from '@/components/share/shared-frame.tsx';
import { ShareMissing } from '@/components/share/shared-chat.tsx';

export default function ShareNotFound() {
  return (
    <SharedFrame path={usePathname() ?? '/'}>
      <ShareMissing />
    </SharedFrame>
  );
}
