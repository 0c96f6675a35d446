// The user's own settings and the operator's password reset:
//   PATCH /api/app/account/profile  {displayName}                 → ProfileResponse
//   POST  /api/app/account/password {currentPassword,newPassword} → PasswordChanged (other sessions ended)
//   POST  /api/app/operator/accounts/:id/reset-password           → PasswordReset (the operator only)
import type { AppUser } from './wire.ts';

export interface ProfileResponse {
  user: AppUser;
}

export interface PasswordChanged {
  /** The user's other sessions, signed out by the change. */
  sessionsEnded: number;
}

export interface PasswordReset {
  /** The email whose password was reset. */
  email: string;
  /** The temporary password: shown to the operator this once, never stored in the clear or sent again. */
  temporaryPassword: string;
  sessionsEnded: number;
}
