/**
 * /invitations/accept#token=…: the link of an invitation. The token stays in the #fragment (never
 * sent to a server in a request line or a Referer); the signed-in user accepts with a press
 * (POST /api/invitations/accept), then the session acts for the account joined and every cached
 * answer is read again for it.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useNavigate } from 'react-router';
import { api, unwrap } from '../api/client';
import { ActionButton } from '../components/action-button';
import { FormError } from '../components/field';
import { PageHeading, usePageTitle } from '../components/page-title';
import { SESSION_KEY, useSession } from '../lib/session';

export function invitationToken(hash: string): string | null {
  const token = new URLSearchParams(hash.replace(/^#/, '')).get('token');
  return token && token.trim() !== '' ? token.trim() : null;
}

export function AcceptInvitationPage() {
  usePageTitle('Invitation');
  const { hash } = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const session = useSession().data;
  const token = invitationToken(hash);
  const accept = useMutation({
    mutationFn: (value: string) => unwrap(api.POST('/api/invitations/accept', { body: { token: value } })),
    onSuccess: async () => {
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
      await queryClient.invalidateQueries({ queryKey: SESSION_KEY });
      await navigate('/jobs');
    },
  });
  return (
    <>
      <div className="page-header">
        <PageHeading>Invitation</PageHeading>
      </div>
      <section className="panel">
        {token ? (
          <>
            <p>
              You were invited to join a Kairos account. Accepting adds it to your accounts
              {session ? ` (signed in as ${session.user.email})` : ''} and switches to it; the link then stops working.
            </p>
            <div className="actions">
              <ActionButton className="primary" busy={accept.isPending} onClick={() => accept.mutate(token)}>
                {accept.isPending ? 'Accepting…' : 'Accept invitation'}
              </ActionButton>
            </div>
            <FormError message={accept.error ? accept.error.message : null} />
          </>
        ) : (
          <p>
            This invitation link is incomplete: open the whole link you were given.{' '}
            <Link to="/">Go to the dashboard</Link>
          </p>
        )}
      </section>
    </>
  );
}
