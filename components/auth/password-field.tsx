'use client';
// A password input with a show/hide toggle (typing a long password on a phone blind is error-prone).
import { useState } from 'react';
import { useTranslations } from 'use-intl';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { EyeIcon, EyeOffIcon } from '@/components/ui/icons.tsx';
import { TextField, type TextFieldProps } from '@/components/auth/text-field.tsx';

export function PasswordField(props: Omit<TextFieldProps, 'type' | 'trailing'>) {
  const t = useTranslations('auth');
  const [shown, setShown] = useState(false);
  return (
    <TextField
      {...props}
      type={shown ? 'text' : 'password'}
      autoCapitalize="none"
      autoCorrect="off"
      spellCheck={false}
      trailing={
        <IconButton label={shown ? t('hidePassword') : t('showPassword')} aria-pressed={shown} onClick={() => setShown((s) => !s)}>
          {shown ? <EyeOffIcon /> : <EyeIcon />}
        </IconButton>
      }
    />
  );
}
