/** A duration typed as a number and a unit (seconds, minutes, hours); the form converts it to ms. */
import { Field } from './field';
import type { SectionProps } from './endpoint-form-schedule';
import type { EndpointFormState, FormField } from './endpoint-form-state';
import { DURATION_UNITS, type Duration, type DurationUnit } from './endpoint-form-units';

/** The form's durations that have a field of their own (and so an error of their own). */
type DurationField = Extract<
  FormField,
  { [K in keyof EndpointFormState]: EndpointFormState[K] extends Duration ? K : never }[keyof EndpointFormState]
>;

export function DurationInput({
  value,
  onChange,
  unitLabel,
  placeholder,
  ...aria
}: {
  value: Duration;
  onChange: (next: Duration) => void;
  /** Accessible name of the unit select (the number input is named by its Field label). */
  unitLabel: string;
  placeholder?: string;
  id?: string;
  /** When no Field label names the number input. */
  'aria-label'?: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}) {
  return (
    <div className="endpoint-form-duration">
      <input
        {...aria}
        type="text"
        inputMode="decimal"
        autoComplete="off"
        placeholder={placeholder}
        value={value.amount}
        onChange={(e) => onChange({ ...value, amount: e.target.value })}
      />
      <select
        aria-label={unitLabel}
        value={value.unit}
        onChange={(e) => onChange({ ...value, unit: e.target.value as DurationUnit })}
      >
        {DURATION_UNITS.map((unit) => (
          <option key={unit.unit} value={unit.unit}>
            {unit.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A labelled DurationInput bound to one duration of the form state, with that field's error. */
export function DurationFieldInput({
  form: { state, set, errors },
  name,
  label,
  hint,
  unitLabel,
  placeholder,
}: {
  form: SectionProps;
  name: DurationField;
  label: string;
  hint: string;
  unitLabel: string;
  placeholder?: string;
}) {
  return (
    <Field label={label} error={errors.fields[name]} hint={hint}>
      <DurationInput
        value={state[name]}
        onChange={(next) => set({ [name]: next })}
        unitLabel={unitLabel}
        placeholder={placeholder}
      />
    </Field>
  );
}
