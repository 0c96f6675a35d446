import { titleMetadata } from '@/components/i18n/server.ts';
import { VerifyEmail } from '@/components/auth/verify-email.tsx';

export const generateMetadata = titleMetadata('verifyEmail');

export default function VerifyEmailPage() {
  return <VerifyEmail />;
}
