// Who the operator is: the first user, an admin signed in by password (a wallet user never is). Checked by the
// operator's pages and by every other place that lets the operator do more (removing any character review).
import { ApiError } from '../api/errors.ts';
import type { User } from './users.ts';

export const isOperator = (user: User): boolean => user.isAdmin && user.wallet === null;

export function requireOperator(user: User): void {
  if (!isOperator(user)) throw new ApiError('FORBIDDEN', "Only this server's operator can do this");
}
