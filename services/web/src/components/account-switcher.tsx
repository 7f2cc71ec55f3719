/**
 * For a user in several accounts: which one the session acts for (POST /api/account/switch). After a
 * switch every cached answer belongs to the other account, so all are dropped and read again.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { SESSION_KEY, type CurrentSession } from '../lib/session';

export function AccountSwitcher({ session }: { session: CurrentSession }) {
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: (accountId: string) => unwrap(api.POST('/api/account/switch', { body: { accountId } })),
    onSuccess: async (next) => {
      queryClient.setQueryData(SESSION_KEY, next);
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
      await queryClient.invalidateQueries();
    },
  });
  if (session.accounts.length < 2) return null;
  return (
    <div className="account-switcher">
      <select
        aria-label="Account"
        value={session.account.id}
        disabled={change.isPending}
        onChange={(event) => change.mutate(event.target.value)}
      >
        {session.accounts.map((account) => (
          <option key={account.id} value={account.id}>
            {account.name} ({account.role})
          </option>
        ))}
      </select>
      {change.error ? (
        <span className="form-error" role="alert">
          {change.error.message}
        </span>
      ) : null}
    </div>
  );
}
