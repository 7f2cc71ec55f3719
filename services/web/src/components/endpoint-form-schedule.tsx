/** The baseline schedule: a fixed interval or a cron expression in a time zone, plus floor and ceiling. */
import { Field, RadioOptions } from './field';
import { DurationFieldInput } from './endpoint-form-duration';
import type { EndpointFormState, FormErrors, ScheduleType } from './endpoint-form-state';

export interface SectionProps {
  state: EndpointFormState;
  set: (patch: Partial<EndpointFormState>) => void;
  errors: FormErrors;
}

function supportedTimezones(): string[] {
  const intl = Intl as { supportedValuesOf?: (key: string) => string[] };
  const zones = typeof intl.supportedValuesOf === 'function' ? intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...zones.filter((zone) => zone !== 'UTC')];
}

const TIMEZONES = supportedTimezones();

const MISSED_RUNS_OPTIONS: { value: EndpointFormState['missedRuns']; label: string }[] = [
  { value: 'latest', label: 'Run the latest missed slot once' },
  { value: 'skip', label: 'Skip them: run the next slot' },
  { value: 'all', label: 'Run each missed slot once, oldest first' },
];

const SCHEDULE_TYPES: { value: ScheduleType; label: string }[] = [
  { value: 'interval', label: 'Fixed period' },
  { value: 'cron', label: 'Cron schedule' },
];

/** The optional bounds on every run time, empty by default. */
const OPTIONAL_LIMITS = [
  {
    name: 'minInterval',
    label: 'Safety floor (optional)',
    hint: 'minIntervalMs: runs are never scheduled closer together than this.',
    unitLabel: 'Floor unit',
  },
  {
    name: 'maxInterval',
    label: 'Ceiling (optional)',
    hint: 'maxIntervalMs: runs are never scheduled further apart than this.',
    unitLabel: 'Ceiling unit',
  },
  {
    name: 'jitter',
    label: 'Jitter (optional)',
    hint: 'jitterMs: each run starts up to this much later than planned (a fixed random offset per run), so endpoints on the same schedule do not all fire at once. Never past the ceiling; at most 1 hour and half the interval.',
    unitLabel: 'Jitter unit',
  },
] as const;

function CronFields({ state, set, errors }: SectionProps) {
  return (
    <>
      <Field
        label="Cron expression"
        error={errors.fields.cron}
        hint="Five fields: minute hour day-of-month month day-of-week. 0 * * * * is hourly, */15 * * * * every 15 minutes, 30 2 * * 1-5 at 02:30 on weekdays."
      >
        <input
          value={state.cron}
          onChange={(e) => set({ cron: e.target.value })}
          placeholder="0 * * * *"
          autoComplete="off"
          spellCheck={false}
          className="endpoint-form-mono"
        />
      </Field>
      <Field
        label="Time zone"
        error={errors.fields.timezone}
        hint="IANA name, e.g. Europe/Paris. The cron fields are read on this zone's clock, daylight saving time included."
      >
        <input
          value={state.timezone}
          onChange={(e) => set({ timezone: e.target.value })}
          list="endpoint-form-timezones"
          autoComplete="off"
          spellCheck={false}
        />
      </Field>
      <datalist id="endpoint-form-timezones">
        {TIMEZONES.map((zone) => (
          <option key={zone} value={zone} />
        ))}
      </datalist>
    </>
  );
}

export function ScheduleFields(form: SectionProps) {
  const { state, set } = form;
  return (
    <fieldset className="endpoint-form-group">
      <legend>Baseline schedule</legend>
      <p className="muted">
        The baseline is the schedule the endpoint follows when no hint applies: a fixed period, or a cron expression
        read in a time zone. The planner may set short-lived hints; the governor keeps runs within the safety floor and
        the ceiling.
      </p>
      <div className="endpoint-form-radios">
        <RadioOptions
          name="schedule-type"
          options={SCHEDULE_TYPES}
          value={state.scheduleType}
          onChange={(scheduleType) => set({ scheduleType })}
        />
      </div>
      {state.scheduleType === 'interval' ? (
        <DurationFieldInput
          form={form}
          name="interval"
          label="Interval"
          hint="Time between runs, at least 1 second."
          unitLabel="Period unit"
        />
      ) : (
        <CronFields {...form} />
      )}
      {OPTIONAL_LIMITS.map((limit) => (
        <DurationFieldInput key={limit.name} form={form} placeholder="none" {...limit} />
      ))}
      <Field
        label="Missed runs"
        error={form.errors.fields.missedRuns}
        hint="missedRuns: what runs for slots missed while the scheduler was away. Run each: at most the 100 most recent, at least a second apart."
      >
        <select
          value={state.missedRuns}
          onChange={(e) => set({ missedRuns: e.target.value as EndpointFormState['missedRuns'] })}
        >
          {MISSED_RUNS_OPTIONS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </Field>
    </fieldset>
  );
}
