/**
 * Unsaved edits are not lost without a word: while the form has changes, a link to another page of
 * the UI asks first (window.confirm, like the other confirmations) and so does the browser before it
 * reloads, closes the tab or follows a typed address (beforeunload; the browser words that question
 * itself). Changes of the query string or #hash stay on the page and ask nothing. A save under way
 * leaves without asking (`allowLeaving`); a failed one warns again (`warnAgain`).
 */
import { useCallback, useEffect, useRef } from 'react';
import { useBlocker } from 'react-router';

export const UNSAVED_QUESTION = 'Leave this page? Your changes to the endpoint are not saved.';

export function useUnsavedWarning(hasChanges: boolean): { allowLeaving: () => void; warnAgain: () => void } {
  // Refs, read when a navigation is attempted: the save's own navigation follows its submit before a re-render.
  const changed = useRef(hasChanges);
  const leaving = useRef(false);
  useEffect(() => {
    changed.current = hasChanges;
  }, [hasChanges]);
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      changed.current && !leaving.current && currentLocation.pathname !== nextLocation.pathname,
  );
  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    if (window.confirm(UNSAVED_QUESTION)) blocker.proceed();
    else blocker.reset();
  }, [blocker]);
  useEffect(() => {
    if (!hasChanges) return;
    const ask = (event: BeforeUnloadEvent) => {
      if (!leaving.current) event.preventDefault();
    };
    window.addEventListener('beforeunload', ask);
    return () => window.removeEventListener('beforeunload', ask);
  }, [hasChanges]);
  const allowLeaving = useCallback(() => {
    leaving.current = true;
  }, []);
  const warnAgain = useCallback(() => {
    leaving.current = false;
  }, []);
  return { allowLeaving, warnAgain };
}
