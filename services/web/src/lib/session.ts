/**
 * The signed-in user (GET /api/auth/status). `null` when signed out: the api answers that with
 * 200 { signedIn: false }, so a signed-out visit logs no failed request in the browser's console.
 */
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';

export type CurrentSession = Schemas['CurrentSession'];

export const SESSION_KEY = ['session'] as const;

export function useSession() {
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: async (): Promise<CurrentSession | null> => (await unwrap(api.GET('/api/auth/status'))).session,
    refetchInterval: 60_000,
  });
}
