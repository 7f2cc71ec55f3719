/** The loading, error and empty states every page shows instead of a blank screen. */
import type { ReactNode } from 'react';
import { ApiError } from '../api/client';

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="state" role="status" aria-live="polite">
      {what}…
    </p>
  );
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof ApiError ? error.code : null;
  // Retrying cannot make a missing or forbidden thing appear; a network error or a 5xx may pass.
  const canRetry = retry && !(error instanceof ApiError && error.status >= 400 && error.status < 500);
  return (
    <div className="state state-error" role="alert">
      <p>
        <strong>{code === 'NOT_FOUND' ? 'Not found.' : 'Something went wrong.'}</strong> {message}
      </p>
      {canRetry ? (
        <button type="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <p>
        <strong>{title}</strong>
      </p>
      {children}
    </div>
  );
}

/** Renders a react-query result: loading → error → content. */
export function QueryView<T>({
  query,
  children,
  what,
}: {
  query: { data: T | undefined; error: unknown; isPending: boolean; refetch: () => unknown };
  children: (data: T) => ReactNode;
  what?: string;
}) {
  if (query.isPending) return <Loading what={what} />;
  if (query.data === undefined) return <ErrorState error={query.error} retry={() => void query.refetch()} />;
  return (
    <>
      {query.error ? <ErrorState error={query.error} retry={() => void query.refetch()} /> : null}
      {children(query.data)}
    </>
  );
}
