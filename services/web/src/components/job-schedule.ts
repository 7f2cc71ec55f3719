/** An endpoint's baseline schedule in words, for lists ("every 5 min", "cron 0 * * * * (Europe/Paris)"). */
import type { Schemas } from '../api/client';
import { formatDuration } from '../lib/time';

type ScheduleFields = Pick<
  Schemas['Endpoint'],
  'baselineIntervalMs' | 'baselineCron' | 'timezone' | 'backoffMultiplier'
>;

function describeBaseline(endpoint: ScheduleFields): string | null {
  if (endpoint.baselineCron !== null) return `cron ${endpoint.baselineCron} (${endpoint.timezone})`;
  if (endpoint.baselineIntervalMs !== null) return `every ${formatDuration(endpoint.baselineIntervalMs)}`;
  return null;
}

export function describeSchedule(endpoint: ScheduleFields): string {
  const baseline = describeBaseline(endpoint);
  if (baseline === null) return '—';
  // After failures the baseline backs off (interval × 1, 2, 4 … 32; cron occurrences skipped): say so.
  return endpoint.backoffMultiplier > 1 ? `${baseline}, backoff ×${endpoint.backoffMultiplier}` : baseline;
}
