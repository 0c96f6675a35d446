import type { Metadata } from 'next';
import { ResetPasswordForm } from '@/components/auth/reset-password-form.tsx';

export const metadata: Metadata = { title: 'Choose a new password' };

export default function ResetPasswordPage() {
  return <ResetPasswordForm />;
}
