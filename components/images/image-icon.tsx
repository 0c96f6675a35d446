// Picture icon for the image mode and the gallery link (24×24 stroke, currentColor, decorative like components/ui/icons).
import { Icon } from '@/components/ui/icons.tsx';

export function ImageIcon({ className }: { className?: string }) {
  return (
    <Icon className={className}>
      <rect x="3" y="4" width="18" height="16" rx="2" />
      <circle cx="9" cy="10" r="1.8" />
      <path d="M21 16l-5-5-9 9" />
    </Icon>
  );
}
