/**
 * Signed out: the configured identity providers, or how to use the one-time local link. Shown after
 * signing out (`focusHeading`), its heading takes focus: the Sign out button that had it is gone.
 */
import { useQuery } from '@tanstack/react-query';
import { useLocation } from 'react-router';
import { api, unwrap } from '../api/client';
import { PageHeading, usePageTitle } from '../components/page-title';
import { QueryView } from '../components/states';

export function SignInPage({ focusHeading = false }: { focusHeading?: boolean }) {
  const location = useLocation();
  const returnTo = `${location.pathname}${location.search}`;
  const providers = useQuery({
    queryKey: ['auth-providers'],
    queryFn: () => unwrap(api.GET('/api/auth/providers')),
    refetchInterval: false,
  });
  usePageTitle('Sign in');
  return (
    <main id="main" className="narrow">
      <PageHeading focusOnMount={focusHeading}>Sign in to Kairos</PageHeading>
      <QueryView query={providers} what="Loading sign-in options">
        {(data) => (
          <>
            {data.providers.map((provider) => (
              <p key={provider.id}>
                <a className="button primary" href={`${provider.signInUrl}?returnTo=${encodeURIComponent(returnTo)}`}>
                  Sign in with {provider.name}
                </a>
              </p>
            ))}
            {data.localSignIn ? (
              <p>
                No identity provider is configured. Open the one-time sign-in link the server printed when it started;
                for a new link, run <code>pnpm kairos login-link</code> where Kairos is installed.
              </p>
            ) : null}
          </>
        )}
      </QueryView>
    </main>
  );
}
