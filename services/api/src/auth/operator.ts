/**
 * The operator role (users.role, set with `kairos users set-role`). Checked against the database on
 * every admin request, so granting or removing the role takes effect at once. An API key or bearer
 * token acts with its user's role; a key that belongs to no user is never an operator.
 */
import { AppError } from '@kairos/core';
import { type Database } from '@kairos/db';
import { getUserWithAccount, type UserWithAccount } from '@kairos/db/system';
import type { NextFunction, Request, Response } from 'express';
import type { AuthContext } from './context.js';

/** 401 without credentials, 403 FORBIDDEN unless the caller's user is an operator. */
export async function requireOperator(db: Database, auth: AuthContext | undefined): Promise<UserWithAccount> {
  if (!auth) throw new AppError('UNAUTHORIZED', 'authentication required');
  const user = auth.userId ? await getUserWithAccount(db, auth.userId) : null;
  if (!user || user.role !== 'operator') throw new AppError('FORBIDDEN', 'this requires the operator role');
  return user;
}

/** Express guard for non-registry routes (Bull Board). */
export function operatorOnly(db: Database) {
  return async (req: Request, _res: Response, next: NextFunction) => {
    await requireOperator(db, req.auth);
    next();
  };
}
