/** A duration typed as a number and a unit (seconds, minutes, hours); the form converts it to ms. */
import { DURATION_UNITS, type Duration, type DurationUnit } from './endpoint-form-units';

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
