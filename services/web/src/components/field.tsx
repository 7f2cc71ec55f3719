/**
 * A labelled form control with its validation message beneath (ids tie label, input and error). The
 * message's element is a live region from the start, so a message that appears (a failed submit) is
 * announced; a form that says it once for all fields (the endpoint form's summary) turns that off
 * with QuietFieldErrors.
 */
import { createContext, useContext, useId, type ReactElement, type ReactNode, cloneElement } from 'react';

const AnnounceErrors = createContext(true);

export function QuietFieldErrors({ children }: { children: ReactNode }) {
  return <AnnounceErrors.Provider value={false}>{children}</AnnounceErrors.Provider>;
}

export function Field({
  label,
  error,
  hint,
  children,
}: {
  label: string;
  error?: string | undefined;
  hint?: string;
  children: ReactElement<Record<string, unknown>>;
}) {
  const id = useId();
  const announce = useContext(AnnounceErrors);
  const describedBy = [error ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(' ');
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, {
        id,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': describedBy || undefined,
      })}
      {hint ? (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      ) : null}
      <small id={`${id}-error`} className="field-error" aria-live={announce ? 'polite' : undefined}>
        {error}
      </small>
    </div>
  );
}

/** A checkbox with its label beside it (not above, as for a text field) and the hint below. */
export function CheckboxField({
  label,
  hint,
  checked,
  onChange,
}: {
  label: string;
  hint?: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const id = useId();
  return (
    <div className="field-check">
      <input
        type="checkbox"
        id={id}
        checked={checked}
        onChange={(event) => onChange(event.target.checked)}
        aria-describedby={hint ? `${id}-hint` : undefined}
      />
      <div>
        <label htmlFor={id}>{label}</label>
        {hint ? (
          <small id={`${id}-hint`} className="muted">
            {hint}
          </small>
        ) : null}
      </div>
    </div>
  );
}

/** An error that belongs to no field, above or below the form; nothing when there is none. */
export function FormError({ message }: { message: string | null | undefined }) {
  return message ? (
    <p className="form-error" role="alert">
      {message}
    </p>
  ) : null;
}

/** One labelled radio button per option (the caller puts them in a fieldset or group that names them). */
export function RadioOptions<T extends string>({
  name,
  options,
  value,
  onChange,
}: {
  name: string;
  options: { value: T; label: string }[];
  value: T;
  onChange: (next: T) => void;
}) {
  return (
    <>
      {options.map((option) => (
        <label key={option.value} className="choice">
          <input
            type="radio"
            name={name}
            value={option.value}
            checked={value === option.value}
            onChange={() => onChange(option.value)}
          />
          {option.label}
        </label>
      ))}
    </>
  );
}
