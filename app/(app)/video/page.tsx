import type { Metadata } from 'next';
import { VideoPage } from '@/components/video/video-page.tsx';

export const metadata: Metadata = { title: 'Video' };

export default function Page() {
  return <VideoPage />;
}
