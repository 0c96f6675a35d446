// Icons for the account pages' links (24×24 stroke, currentColor, decorative like components/ui/icons).
import { Icon } from '@/components/ui/icons.tsx';

export const BillingIcon = ({ className }: { className?: string }) => (
  <Icon className={className}>
    <rect x="3" y="5" width="18" height="14" rx="2" />
    <path d="M3 10h18M7 15h4" />
  </Icon>
);
export const KeyIcon = ({ className }: { className?: string }) => (
  <Icon className={className}>
    <circle cx="8" cy="15" r="4" />
    <path d="m10.8 12.2 8.2-8.2M16 7l2 2M14 9l2 2" />
  </Icon>
);
export const GaugeIcon = ({ className }: { className?: string }) => (
  <Icon className={className}>
    <path d="M4 18a8 8 0 1 1 16 0" />
    <path d="m12 14 4-5" />
  </Icon>
);
export const ShieldIcon = ({ className }: { className?: string }) => (
  <Icon className={className}>
    <path d="M12 3 5 6v6c0 4.5 3 7.5 7 9 4-1.5 7-4.5 7-9V6z" />
  </Icon>
);
export const BellIcon = ({ className }: { className?: string }) => (
  <Icon className={className}>
    <path d="M6 16V11a6 6 0 0 1 12 0v5l2 2H4z" />
    <path d="M10 20a2 2 0 0 0 4 0" />
  </Icon>
);
