// The prompt library's icon: a slash in a box, the key that opens the list in the composer.
import { Icon, type IconProps } from '@/components/ui/icons.tsx';

export const PromptIcon = (p: IconProps) => (
  <Icon {...p}>
    <rect x="3" y="3" width="18" height="18" rx="3" />
    <path d="M14.5 7l-5 10" />
  </Icon>
);
