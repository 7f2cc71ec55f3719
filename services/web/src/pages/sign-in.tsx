/** Signed out: the configured identity providers, or how to use the one-time local link. */
import { useQuery } from '@tanstack/react-query';
import { useLocation } from 'react-router';
import { api, unwrap } from '../api/client';
import { QueryView } from '../components/states';

export function SignInPage() {
  const location = useLocation();
  const returnTo = `${location.pathname}${location.search}`;
  const providers = useQuery({
    queryKey: ['auth-providers'],
    queryFn: () => unwrap(api.GET('/api/auth/providers')),
    refetchInterval: false,
  });
  return (
    <main id="main" className="narrow">
      <h1>Sign in to Kairos</h1>
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
                No identity provider is configured. Open the one-time sign-in link the server printed when it started
                (restart it for a new one).
              </p>
            ) : null}
          </>
        )}
      </QueryView>
    </main>
  );
}
