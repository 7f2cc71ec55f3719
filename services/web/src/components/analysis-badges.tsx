/** Badges shared by the analysis session page and list: status, and the shadow-mode mark. */
import type { Schemas } from '../api/client';

const STATUS: Record<Schemas['AnalysisSession']['status'], { label: string; className: string }> = {
  completed: { label: 'Completed', className: 'badge-success' },
  failed: { label: 'Failed', className: 'badge-failed' },
  skipped: { label: 'Skipped', className: 'badge-skipped' },
};

export function AnalysisStatusBadge({ status }: { status: Schemas['AnalysisSession']['status'] }) {
  const { label, className } = STATUS[status] ?? { label: status, className: '' };
  return <span className={`badge ${className}`}>{label}</span>;
}

/** Shadow mode: the planner's proposals were recorded, not applied. */
export function ShadowBadge({ short = false }: { short?: boolean }) {
  return (
    <span className="badge badge-shadow" title="Shadow mode: proposed, not applied">
      {short ? 'Shadow' : 'Shadow mode: proposed, not applied'}
    </span>
  );
}
