/** Status and source badges of a run (text carries the meaning; colour only repeats it). */
import { isAiSource, sourceLabel } from './run-format';

export function RunStatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status === 'success' ? 'success' : 'failed'}`}>{status}</span>;
}

export function RunSourceBadge({ source }: { source: string }) {
  const isAi = isAiSource(source);
  return (
    <span className={`badge${isAi ? ' badge-ai' : ' badge-source'}`} title={`source: ${source}`}>
      {sourceLabel(source)}
    </span>
  );
}
