/** GET /api/account, shared by the AI features and usage sections (one request, one cache entry). */
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';

export type Account = Schemas['Account'];

export const ACCOUNT_KEY = ['account'] as const;

export function useAccount() {
  return useQuery({ queryKey: ACCOUNT_KEY, queryFn: () => unwrap(api.GET('/api/account')) });
}
