/** Status badges (the API's words: active, paused, archived, success, failed) and relative times. */
import { formatDateTime, formatRelative } from '../lib/time';

export function StatusBadge({ status, title }: { status: string; title?: string }) {
  return (
    <span className={`badge badge-${status}`} title={title}>
      {status}
    </span>
  );
}

/** A time relative to now ("in 12 s", "3 min ago"), with the absolute time in the title. */
export function RelativeTime({ iso, empty = '—' }: { iso: string | null | undefined; empty?: string }) {
  if (!iso) return <span className="muted">{empty}</span>;
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatRelative(iso)}
    </time>
  );
}
