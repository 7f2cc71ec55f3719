/**
 * A form that failed, for keyboard and screen-reader users: focus moves to its first invalid field
 * (whose message Field ties to it with aria-describedby) and the message is announced in a live region,
 * "Key name: Give the key a name.", also when focus was in that field already (Enter pressed there).
 *
 * `signal` is what changes once per failure: the mutation's error (a new object per failed request)
 * or a check's result made anew on each submit. A refetch or a keystroke does not move focus.
 */
import { useEffect, useRef, type ReactNode, type RefObject } from 'react';

/** "<label>: <its error>" for an invalid control, from the DOM the screen reader reads too. */
function describeError(field: HTMLElement): string {
  const label =
    field.getAttribute('aria-label') ??
    Array.from((field as HTMLInputElement).labels ?? [])
      .map((element) => element.textContent ?? '')
      .join(' ');
  const message = (field.getAttribute('aria-describedby') ?? '')
    .split(/\s+/)
    .map((id) => document.getElementById(id))
    .find((element) => element?.classList.contains('field-error'))?.textContent;
  return [label.trim(), message?.trim()].filter(Boolean).join(': ');
}

/** Focuses the first invalid control in `container` and answers what to announce; null when there is none. */
export function focusFirstInvalid(container: HTMLElement | null): string | null {
  const field = container?.querySelector<HTMLElement>('[aria-invalid="true"]');
  if (!field) return null;
  field.focus();
  return describeError(field);
}

export function useErrorFocus(signal: unknown): {
  ref: RefObject<HTMLFormElement | null>;
  announcer: ReactNode;
} {
  const ref = useRef<HTMLFormElement>(null);
  const region = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (!signal || !region.current) return;
    // A new text node each time: the same message after a second failed submit is announced again.
    region.current.textContent = focusFirstInvalid(ref.current) ?? '';
  }, [signal]);
  // A live region present before its text changes (screen readers announce changes of a region they
  // know); assertive, as an alert: the person asked for something that did not happen.
  return { ref, announcer: <p ref={region} aria-live="assertive" aria-atomic="true" className="visually-hidden" /> };
}
