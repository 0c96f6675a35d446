// Bar-chart icon for links to the usage dashboard (24×24 stroke, currentColor, decorative like components/ui/icons).
import { Icon } from '@/components/ui/icons.tsx';

export function UsageIcon({ className }: { className?: string }) {
  return (
    <Icon className={className}>
      <path d="M4 20h16M7 16v-5M12 16V6M17 16v-8" />
    </Icon>
  );
}
