/**
 * The role the session acts with in its current account (GET /api/auth/status: memberRole), for
 * hiding what the API would refuse: a viewer (or a read-scoped key) sees no write controls, only
 * admins and owners manage members. The API enforces the same roles; this only spares a 403.
 */
import { useQuery } from '@tanstack/react-query';
import { SESSION_KEY, type CurrentSession } from './session';

export type MemberRole = CurrentSession['memberRole'];

const RANK: Record<MemberRole, number> = { viewer: 0, editor: 1, admin: 2, owner: 3 };

export function roleAtLeast(role: MemberRole, least: MemberRole): boolean {
  return RANK[role] >= RANK[least];
}

/**
 * The current role, read from the session already loaded (pages render only once it is: App.tsx);
 * never fetches. Unknown (a component rendered alone), nothing is hidden and the API decides.
 */
export function useMemberRole(): MemberRole {
  const session = useQuery<CurrentSession | null>({ queryKey: SESSION_KEY, enabled: false });
  return session.data?.memberRole ?? 'owner';
}

/** Jobs, endpoints, runs: editor and above. */
export function useCanEdit(): boolean {
  return roleAtLeast(useMemberRole(), 'editor');
}
