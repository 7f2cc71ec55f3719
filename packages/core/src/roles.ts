/**
 * Roles of a user in an account (memberships), most powerful first. A credential acts with the
 * role of its user in the account it acts for; a read-scoped API key is capped at viewer.
 * - owner: everything, including members, ownership and the account's deletion;
 * - admin: everything but ownership (no owner is made or unmade by an admin);
 * - editor: jobs, endpoints, scheduling, runs, test runs;
 * - viewer: reads only.
 */
export const MEMBER_ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** Scopes of an API key: read (acts as a viewer) or write (its creator's role). */
export const API_KEY_SCOPES = ['read', 'write'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

const RANK: Record<MemberRole, number> = { owner: 3, admin: 2, editor: 1, viewer: 0 };

/** True when `role` is `least` or more powerful. */
export function roleAtLeast(role: MemberRole, least: MemberRole): boolean {
  return RANK[role] >= RANK[least];
}

/** The less powerful of two roles. */
export function weakerRole(a: MemberRole, b: MemberRole): MemberRole {
  return RANK[a] <= RANK[b] ? a : b;
}

/** The role a credential acts with: its user's role, capped at viewer for a read-scoped key. */
export function effectiveRole(userRole: MemberRole, scope: ApiKeyScope = 'write'): MemberRole {
  return scope === 'read' ? weakerRole(userRole, 'viewer') : userRole;
}
