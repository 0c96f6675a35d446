// Film-camera icon for links to the video page (24×24 stroke, currentColor, decorative like components/ui/icons).
import { Icon } from '@/components/ui/icons.tsx';

export function VideoIcon({ className }: { className?: string }) {
  return (
    <Icon className={className}>
      <rect x="3" y="6" width="13" height="12" rx="2" />
      <path d="M16 10.5l5-3v9l-5-3" />
    </Icon>
  );
}
