/**
 * The endpoint's calendar: the active period (no run before its start or from its end on) and the
 * blackout windows during which no run starts, each recurring (a cron time in the endpoint's zone and
 * how long it lasts) or from one time to another. Times are typed in the browser's zone.
 */
import { DurationInput } from './endpoint-form-duration';
import type { SectionProps } from './endpoint-form-schedule';
import { newBlackoutRow, type BlackoutRow } from './endpoint-form-state';
import { Field } from './field';

/** The API's limit on blackout windows (BLACKOUTS_MAX in @kairos/core). */
const BLACKOUTS_MAX = 50;

function BlackoutRowInputs({
  row,
  index,
  onChange,
  onRemove,
}: {
  row: BlackoutRow;
  index: number;
  onChange: (row: BlackoutRow) => void;
  onRemove: () => void;
}) {
  const n = index + 1;
  return (
    <li className="endpoint-form-header-row">
      <select
        aria-label={`Window ${n} kind`}
        value={row.kind}
        onChange={(e) => onChange({ ...row, kind: e.target.value as BlackoutRow['kind'] })}
      >
        <option value="cron">Every time a cron expression matches</option>
        <option value="range">From one time to another</option>
      </select>
      {row.kind === 'cron' ? (
        <>
          <input
            aria-label={`Window ${n} cron expression`}
            className="endpoint-form-mono"
            placeholder="0 1 * * *"
            autoComplete="off"
            spellCheck={false}
            value={row.cron}
            onChange={(e) => onChange({ ...row, cron: e.target.value })}
          />
          <DurationInput
            aria-label={`Window ${n} lasts`}
            unitLabel={`Window ${n} duration unit`}
            value={row.duration}
            onChange={(duration) => onChange({ ...row, duration })}
          />
        </>
      ) : (
        <>
          <input
            type="datetime-local"
            aria-label={`Window ${n} starts`}
            value={row.from}
            onChange={(e) => onChange({ ...row, from: e.target.value })}
          />
          <input
            type="datetime-local"
            aria-label={`Window ${n} ends`}
            value={row.to}
            onChange={(e) => onChange({ ...row, to: e.target.value })}
          />
        </>
      )}
      <button type="button" aria-label={`Remove window ${n}`} onClick={onRemove}>
        Remove
      </button>
    </li>
  );
}

export function CalendarFields({ state, set, errors }: SectionProps) {
  const rows = state.blackouts;
  const update = (index: number, row: BlackoutRow) =>
    set({ blackouts: rows.map((item, i) => (i === index ? row : item)) });
  return (
    <fieldset className={`endpoint-form-group${errors.fields.blackouts ? ' field-invalid' : ''}`}>
      <legend>Calendar</legend>
      <p className="muted">
        Optional. No run starts outside the active period or inside a blackout window: a run that would falls on the
        first scheduled time after the window (a one-shot hint, on the window&apos;s end).
      </p>
      <Field label="Active from (optional)" error={errors.fields.activeFrom} hint="activeFrom: no run starts before.">
        <input type="datetime-local" value={state.activeFrom} onChange={(e) => set({ activeFrom: e.target.value })} />
      </Field>
      <Field
        label="Active until (optional)"
        error={errors.fields.activeUntil}
        hint="activeUntil: no run starts at or after this time; after the start."
      >
        <input type="datetime-local" value={state.activeUntil} onChange={(e) => set({ activeUntil: e.target.value })} />
      </Field>
      <h3>Blackout windows</h3>
      <p className="muted">
        A recurring window opens each time its cron expression matches in the endpoint&apos;s time zone and lasts as
        long as given (less than the time between its openings). At most {BLACKOUTS_MAX}.
      </p>
      {rows.length > 0 ? (
        <ul className="endpoint-form-headers">
          {rows.map((row, index) => (
            <BlackoutRowInputs
              key={row.key}
              row={row}
              index={index}
              onChange={(next) => update(index, next)}
              onRemove={() => set({ blackouts: rows.filter((_, i) => i !== index) })}
            />
          ))}
        </ul>
      ) : null}
      {errors.fields.blackouts ? (
        <p className="field-error" role="alert">
          {errors.fields.blackouts}
        </p>
      ) : null}
      <button
        type="button"
        disabled={rows.length >= BLACKOUTS_MAX}
        onClick={() => set({ blackouts: [...rows, newBlackoutRow()] })}
      >
        Add blackout window
      </button>
    </fieldset>
  );
}
