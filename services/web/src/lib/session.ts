/** The signed-in user (GET /api/auth/session). `null` when signed out (401). */
import { useQuery } from '@tanstack/react-query';
import { api, ApiError, unwrap, type Schemas } from '../api/client';

export type CurrentSession = Schemas['CurrentSession'];

export const SESSION_KEY = ['session'] as const;

export function useSession() {
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: async (): Promise<CurrentSession | null> => {
      try {
        return await unwrap(api.GET('/api/auth/session'));
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    refetchInterval: 60_000,
  });
}
