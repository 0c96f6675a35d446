// The memory icon: a bookmark with a spark, for "remember this" and the memory page.
import { Icon, type IconProps } from '@/components/ui/icons.tsx';

export const MemoryIcon = (p: IconProps) => (
  <Icon {...p}>
    <path d="M6 3h12v18l-6-4-6 4z" />
    <path d="M12 7v4M10 9h4" />
  </Icon>
);
