import { titleMetadata } from '@/components/i18n/server.ts';
import { ResetPasswordForm } from '@/components/auth/reset-password-form.tsx';

export const generateMetadata = titleMetadata('resetPassword');

export default function ResetPasswordPage() {
  return <ResetPasswordForm />;
}
