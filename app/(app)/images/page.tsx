import type { Metadata } from 'next';
import { GalleryPage } from '@/components/images/gallery-page.tsx';

export const metadata: Metadata = { title: 'Images' };

export default function Page() {
  return <GalleryPage />;
}
