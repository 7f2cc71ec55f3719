/** Health summary of the last 24 hours (GET /api/endpoints/{id}/health), as cards. */
import { useQuery } from '@tanstack/react-query';
import { formatDateTime, formatDuration, formatRelative } from '../lib/time';
import { endpointHealthKey, fetchEndpointHealth, HEALTH_HOURS } from './endpoint-queries';
import { Empty, QueryView } from './states';

export function EndpointHealthPanel({ endpointId }: { endpointId: string }) {
  const health = useQuery({ queryKey: endpointHealthKey(endpointId), queryFn: () => fetchEndpointHealth(endpointId) });
  return (
    <section aria-labelledby="health-heading">
      <h2 id="health-heading">Health (last {HEALTH_HOURS} h)</h2>
      <QueryView query={health} what="Loading health">
        {(data) =>
          data.totalRuns === 0 && data.lastRunAt === null ? (
            <Empty title="No runs yet.">
              <p>Health appears after the first run. Use “Test now” to try the endpoint.</p>
            </Empty>
          ) : (
            <div className="cards">
              <Card label="Success rate" value={`${data.successRate}%`} />
              <Card
                label="Runs"
                value={String(data.totalRuns)}
                detail={`${data.successCount} ok, ${data.failureCount} failed`}
              />
              <Card label="Average duration" value={formatDuration(data.avgDurationMs)} />
              <Card label="p95 duration" value={formatDuration(data.p95DurationMs)} />
              <Card label="Failure streak" value={String(data.failureStreak)} />
              <Card
                label="Last scheduled run"
                value={data.lastStatus ?? '—'}
                detail={data.lastRunAt ? formatRelative(data.lastRunAt) : 'none yet'}
                title={data.lastRunAt ? formatDateTime(data.lastRunAt) : undefined}
              />
            </div>
          )
        }
      </QueryView>
    </section>
  );
}

function Card({
  label,
  value,
  detail,
  title,
}: {
  label: string;
  value: string;
  detail?: string;
  title?: string | undefined;
}) {
  return (
    <div className="card" title={title}>
      <div className="muted">{label}</div>
      <div className="value">{value}</div>
      {detail ? <div className="muted">{detail}</div> : null}
    </div>
  );
}
