/**
 * A button that keeps focus while its action runs. A `disabled` button drops focus to the page body
 * the moment it is disabled, so a keyboard user would start again from the top after every Test now
 * or Pause; `aria-disabled` says "unavailable" to assistive technology and the button ignores
 * presses meanwhile (for a submit button, the press does not submit the form either).
 */
import type { ComponentProps, MouseEvent } from 'react';

export function ActionButton({
  busy,
  onClick,
  type = 'button',
  ...props
}: Omit<ComponentProps<'button'>, 'type'> & { busy: boolean; type?: 'button' | 'submit' }) {
  const press = (event: MouseEvent<HTMLButtonElement>) => {
    if (busy) {
      event.preventDefault();
      return;
    }
    onClick?.(event);
  };
  return <button {...props} type={type} aria-disabled={busy || undefined} onClick={press} />;
}
