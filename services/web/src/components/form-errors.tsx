/**
 * A form that failed, for keyboard and screen-reader users: focus moves to its first invalid field,
 * whose message Field ties to it (aria-describedby) and announces (a live region, so also when focus
 * was in that field already and Enter was pressed there).
 *
 * `signal` is what changes once per failure: the mutation's error (a new object per failed request)
 * or a check's result made anew on each submit. A refetch or a keystroke does not move focus.
 */
import { useEffect, useRef, type RefObject } from 'react';

/** Focuses the first invalid control in `container`; false when there is none. */
export function focusFirstInvalid(container: HTMLElement | null): boolean {
  const field = container?.querySelector<HTMLElement>('[aria-invalid="true"]');
  field?.focus();
  return field !== null && field !== undefined;
}

export function useErrorFocus(signal: unknown): RefObject<HTMLFormElement | null> {
  const ref = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (signal) focusFirstInvalid(ref.current);
  }, [signal]);
  return ref;
}
