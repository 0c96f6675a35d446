import { titleMetadata } from '@/components/i18n/server.ts';
import { ForgotPasswordForm } from '@/components/auth/forgot-password-form.tsx';

export const generateMetadata = titleMetadata('forgotPassword');

export default function ForgotPasswordPage() {
  return <ForgotPasswordForm />;
}
