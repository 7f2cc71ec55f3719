import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { ApiError } from './api/client';
import { App } from './App';
import { SESSION_KEY } from './lib/session';
import './styles.css';

/** How often an open page refetches what it shows (new runs appear without a reload). */
export const REFRESH_INTERVAL_MS = 3000;

const onError = (error: unknown) => {
  // The session expired or was revoked: show the sign-in page.
  if (error instanceof ApiError && error.status === 401) void queryClient.invalidateQueries({ queryKey: SESSION_KEY });
};

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      refetchInterval: REFRESH_INTERVAL_MS,
      retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
    },
  },
});

// A data router (one catch-all route; App's <Routes> match the rest): it lets a page with unsaved
// edits hold a navigation until the person confirms (useBlocker, components/unsaved-warning.ts).
const router = createBrowserRouter([{ path: '*', element: <App /> }]);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
