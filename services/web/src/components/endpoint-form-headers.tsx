/**
 * Header rows (name → value). A sensitive value read back from the API is hidden (********): its
 * row shows an empty value, and left empty the stored value is kept; typing replaces it.
 */
import { newHeaderRow, type HeaderRow } from './endpoint-form-state';

function HeaderRowInputs({
  row,
  index,
  error,
  onChange,
  onRemove,
}: {
  row: HeaderRow;
  index: number;
  error: string | undefined;
  onChange: (row: HeaderRow) => void;
  onRemove: () => void;
}) {
  const errorId = `${row.key}-error`;
  const noteId = `${row.key}-note`;
  const describedBy = [error ? errorId : null, row.isMasked ? noteId : null].filter(Boolean).join(' ') || undefined;
  return (
    <li className={`endpoint-form-header${error ? ' field-invalid' : ''}`}>
      <div className="endpoint-form-header-inputs">
        <input
          aria-label={`Header ${index + 1}`}
          placeholder="X-Team"
          autoComplete="off"
          spellCheck={false}
          value={row.name}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
          onChange={(e) => onChange({ ...row, name: e.target.value })}
        />
        <input
          aria-label={`Value ${index + 1}`}
          placeholder={row.isMasked ? '•••••••• (kept)' : 'value'}
          autoComplete="off"
          spellCheck={false}
          value={row.value}
          aria-describedby={describedBy}
          onChange={(e) => onChange({ ...row, value: e.target.value })}
        />
        <button type="button" aria-label={`Remove header ${index + 1}`} onClick={onRemove}>
          Remove
        </button>
      </div>
      {row.isMasked ? (
        <small id={noteId} className="muted">
          The stored value is a secret and is not shown. Leave the value empty to keep it, or type a new one.
        </small>
      ) : null}
      {error ? (
        <small id={errorId} className="field-error">
          {error}
        </small>
      ) : null}
    </li>
  );
}

export function HeadersEditor({
  rows,
  onChange,
  rowErrors,
  error,
}: {
  rows: HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
  rowErrors: Record<string, string>;
  error: string | undefined;
}) {
  const update = (index: number, row: HeaderRow) => onChange(rows.map((item, i) => (i === index ? row : item)));
  return (
    <fieldset className={`endpoint-form-group${error ? ' field-invalid' : ''}`}>
      <legend>Headers</legend>
      <p className="muted">
        Sent with every request (not templated). Kairos sets Host, Content-Length, Connection, User-Agent and the
        X-Service-* signing headers itself. Values of secret-looking headers (names containing auth, token, secret,
        password, passphrase, key, sig, credential, session, private or cookie) are never shown again after saving.
      </p>
      {rows.length > 0 ? (
        <ul className="endpoint-form-headers">
          {rows.map((row, index) => (
            <HeaderRowInputs
              key={row.key}
              row={row}
              index={index}
              error={rowErrors[row.key]}
              onChange={(next) => update(index, next)}
              onRemove={() => onChange(rows.filter((_, i) => i !== index))}
            />
          ))}
        </ul>
      ) : null}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="button" onClick={() => onChange([...rows, newHeaderRow()])}>
        Add header
      </button>
    </fieldset>
  );
}
