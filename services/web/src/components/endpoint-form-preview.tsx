/**
 * The next runs as the schedule is edited (an existing endpoint only): the form's schedule fields
 * (baseline, time zone, floor, ceiling, jitter, calendar) sent as a draft to
 * POST /api/endpoints/{endpointId}/upcoming, PREVIEW_DEBOUNCE_MS after the last change; nothing is
 * saved. The API's refusal of a draft is shown here, in its words.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { formatDateTime, formatRelative } from '../lib/time';
import { buildCalendar } from './endpoint-form-request';
import type { EndpointFormState, FormErrors } from './endpoint-form-state';
import { durationToMs } from './endpoint-form-units';
import { sourceLabel } from './run-format';

/** How many runs the preview lists. */
export const PREVIEW_COUNT = 5;
/** Typing pauses this long before the preview asks again. */
export const PREVIEW_DEBOUNCE_MS = 400;

type Draft = Schemas['UpcomingDraftInput'];
type DraftResult = { ok: true; draft: Draft } | { ok: false; message: string };

/** The schedule fields as a draft, or what to complete first. */
export function buildScheduleDraft(state: EndpointFormState): DraftResult {
  const fields: FormErrors['fields'] = {};
  const ms = (duration: EndpointFormState['interval']) => {
    const result = durationToMs(duration);
    return result.ok ? result.ms : undefined;
  };
  const minIntervalMs = ms(state.minInterval);
  const maxIntervalMs = ms(state.maxInterval);
  const jitterMs = ms(state.jitter);
  const calendar = buildCalendar(state, fields);
  const firstError = Object.values(fields)[0];
  if (firstError) return { ok: false, message: `Complete the calendar to see the next runs (${firstError}).` };
  if (minIntervalMs === undefined || maxIntervalMs === undefined || jitterMs === undefined) {
    return { ok: false, message: 'Complete the floor, ceiling and jitter to see the next runs.' };
  }
  const common = { minIntervalMs, maxIntervalMs, jitterMs: jitterMs ?? 0, ...calendar };
  if (state.scheduleType === 'cron') {
    const cron = state.cron.trim().replace(/\s+/g, ' ');
    if (cron === '') return { ok: false, message: 'Enter a cron expression to see the next runs.' };
    return { ok: true, draft: { baselineCron: cron, timezone: state.timezone.trim(), ...common } };
  }
  const intervalMs = ms(state.interval);
  if (intervalMs === undefined || intervalMs === null) {
    return { ok: false, message: 'Enter the time between runs to see the next runs.' };
  }
  return { ok: true, draft: { baselineIntervalMs: intervalMs, ...common } };
}

function useDebounced<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

export function SchedulePreview({ endpointId, state }: { endpointId: string; state: EndpointFormState }) {
  const built = buildScheduleDraft(state);
  const key = useDebounced(built.ok ? JSON.stringify(built.draft) : null, PREVIEW_DEBOUNCE_MS);
  const preview = useQuery({
    queryKey: ['endpoint-upcoming-preview', endpointId, key],
    queryFn: () =>
      unwrap(
        api.POST('/api/endpoints/{endpointId}/upcoming', {
          params: { path: { endpointId }, query: { count: PREVIEW_COUNT } },
          body: JSON.parse(key!) as Draft,
        }),
      ),
    enabled: key !== null,
    retry: false,
    staleTime: 30_000,
  });
  return (
    <section className="endpoint-form-group" aria-labelledby="schedule-preview-heading">
      <h2 id="schedule-preview-heading">Next runs with these settings</h2>
      <p className="muted">As the scheduler would plan them if you saved now; nothing is saved.</p>
      <div aria-live="polite">
        {!built.ok ? (
          <p className="muted">{built.message}</p>
        ) : preview.error ? (
          <p className="field-error" role="alert">
            {(preview.error as Error).message}
          </p>
        ) : preview.data && key !== null ? (
          <PreviewList runs={preview.data.runs} />
        ) : (
          <p className="muted">Working out the next runs…</p>
        )}
      </div>
    </section>
  );
}

function PreviewList({ runs }: { runs: Schemas['UpcomingRuns']['runs'] }) {
  if (runs.length === 0) return <p>No runs: the active period is over, or the job is paused.</p>;
  return (
    <ol className="upcoming-runs">
      {runs.map((run) => (
        <li key={run.at}>
          <time dateTime={run.at}>{formatDateTime(run.at)}</time>{' '}
          <span className="muted">
            ({formatRelative(run.at)}, {sourceLabel(run.source)}
            {run.calendar ? `, ${calendarText(run.calendar)}` : ''})
          </span>
        </li>
      ))}
    </ol>
  );
}

/** What moved a run: "after blackout window 2" or "from the start of the active period". */
export function calendarText(hold: NonNullable<Schemas['UpcomingRuns']['runs'][number]['calendar']>): string {
  return hold.kind === 'blackout'
    ? `after blackout window ${(hold.index ?? 0) + 1}`
    : 'from the start of the active period';
}
