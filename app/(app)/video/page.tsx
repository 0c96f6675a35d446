import { titleMetadata } from '@/components/i18n/server.ts';
import { VideoPage } from '@/components/video/video-page.tsx';

export const generateMetadata = titleMetadata('video');

export default function Page() {
  return <VideoPage />;
}
