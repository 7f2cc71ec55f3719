/**
 * A secret shown once (a new API key or signing key): the value in a .secret box, a Copy button
 * and the note that it will not be shown again. The api never returns it a second time, so
 * closing the box ("Done") forgets it. The box takes focus when it appears, so a screen reader
 * announces it (its name, then the note) and Tab reaches Copy next; `onDone` says where focus goes
 * once it is closed.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

type CopyState = 'idle' | 'copied' | 'failed';

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

export function SecretOnce({
  label,
  value,
  children,
  onDone,
}: {
  /** What the secret is, e.g. "New API key"; names the group for assistive technology. */
  label: string;
  value: string;
  /** How to use the secret (one short paragraph). */
  children?: ReactNode;
  onDone: () => void;
}) {
  const [copy, setCopy] = useState<CopyState>('idle');
  const box = useRef<HTMLDivElement>(null);
  const noteId = useId();
  useEffect(() => box.current?.focus(), [value]);
  return (
    <div
      ref={box}
      className="panel settings-secret"
      role="group"
      aria-label={label}
      aria-describedby={noteId}
      tabIndex={-1}
    >
      <p id={noteId}>
        <strong>{label}: copy it now. It is shown only once and will not be shown again.</strong>
      </p>
      <p className="secret">
        <code>{value}</code>
      </p>
      {children}
      <div className="actions">
        <button
          type="button"
          className="primary"
          onClick={() => void copyText(value).then((ok) => setCopy(ok ? 'copied' : 'failed'))}
        >
          Copy
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
        <span role="status" aria-live="polite" className={copy === 'failed' ? 'form-error' : 'muted'}>
          {copy === 'copied' ? 'Copied to the clipboard.' : null}
          {copy === 'failed' ? 'The browser refused to copy: select the key and copy it by hand.' : null}
        </span>
      </div>
    </div>
  );
}
