import { titleMetadata } from '@/components/i18n/server.ts';
import { GalleryPage } from '@/components/images/gallery-page.tsx';

export const generateMetadata = titleMetadata('images');

export default function Page() {
  return <GalleryPage />;
}
