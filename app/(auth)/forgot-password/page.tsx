import type { Metadata } from 'next';
import { ForgotPasswordForm } from '@/components/auth/forgot-password-form.tsx';

export const metadata: Metadata = { title: 'Reset your password' };

export default function ForgotPasswordPage() {
  return <ForgotPasswordForm />;
}
