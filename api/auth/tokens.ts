import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Account } from '../../db/accounts';
import type { UserRow } from '../../db/users';
import type { AuthSettings } from './settings';

export interface Identity {
  /** tenant user id, or `superadmin:<id>` for a superadmin's master record */
  sub: string;
  email: string;
  name: string;
  role: 'admin' | 'user' | 'superadmin';
  authProvider: 'local' | 'microsoft' | 'google';
  canRunProcess: boolean;
  canCreateOverride: boolean;
  allowedSegments: number[];
  allowedSegmentsEdit: number[];
  isSuperadmin: boolean;
}

export const identityOfUser = (u: UserRow): Identity => ({
  sub: String(u.id),
  email: u.email,
  name: u.name,
  role: u.role,
  authProvider: u.auth_provider,
  canRunProcess: u.can_run_process,
  canCreateOverride: u.can_create_override,
  allowedSegments: u.allowed_segments,
  allowedSegmentsEdit: u.allowed_segments_edit,
  isSuperadmin: false,
});

export const identityOfSuperadmin = (s: { id: number; email: string; name: string }): Identity => ({
  sub: `superadmin:${s.id}`,
  email: s.email,
  name: s.name,
  role: 'superadmin',
  authProvider: 'local',
  canRunProcess: true,
  canCreateOverride: true,
  allowedSegments: [],
  allowedSegmentsEdit: [],
  isSuperadmin: true,
});

export const userView = (id: Identity, account: Pick<Account, 'id' | 'name'>) => ({
  id: id.sub,
  email: id.email,
  name: id.name,
  role: id.role,
  account_id: account.id,
  account_name: account.name,
  auth_provider: id.authProvider,
  is_superadmin: id.isSuperadmin,
  can_run_process: id.canRunProcess,
  can_create_override: id.canCreateOverride,
  allowed_segments: id.allowedSegments,
  allowed_segments_edit: id.allowedSegmentsEdit,
});

/** The token answer of login, SSO login and switch-account (spec §4.1). */
export async function issueToken(settings: AuthSettings, id: Identity, account: Pick<Account, 'id' | 'name'>) {
  const expiresIn = (await settings.expiryMinutes()) * 60;
  const claims = {
    jti: crypto.randomUUID(),
    sub: id.sub,
    email: id.email,
    role: id.role,
    display_name: id.name,
    auth_provider: id.authProvider,
    allowed_segments: id.allowedSegments,
    can_run_process: id.canRunProcess,
    can_create_override: id.canCreateOverride,
    allowed_segments_edit: id.allowedSegmentsEdit,
    is_superadmin: id.isSuperadmin,
    account_id: account.id,
    account_name: account.name,
  };
  const token = jwt.sign(claims, await settings.secret(), { algorithm: 'HS256', expiresIn });
  return { access_token: token, token_type: 'bearer', expires_in: expiresIn, user: userView(id, account) };
}
