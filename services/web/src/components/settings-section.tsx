/** Building blocks shared by the settings sections: a titled section with an anchor, and a time. */
import type { ReactNode } from 'react';
import { formatDateTime, formatRelative } from '../lib/time';

export interface SectionLink {
  id: string;
  title: string;
}

/** The settings sections in page order; the in-page navigation is built from this list. */
export const SETTINGS_SECTIONS = [
  { id: 'api-keys', title: 'API keys' },
  { id: 'signing-key', title: 'Signing key' },
  { id: 'secrets', title: 'Shared secrets' },
  { id: 'ai-features', title: 'AI features' },
  { id: 'notifications', title: 'Notifications' },
  { id: 'host-budgets', title: 'Host budgets' },
  { id: 'connected-devices', title: 'Connected devices' },
  { id: 'usage', title: 'Usage' },
] as const satisfies readonly SectionLink[];

/**
 * A <section> labelled by its <h2>, so it is a landmark a reader can jump to. The heading takes
 * focus (focusSection) when what had it is gone, e.g. a revoked row.
 */
export function SettingsSection({ id, title, children }: SectionLink & { children: ReactNode }) {
  return (
    <section className="panel settings-section" id={id} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} tabIndex={-1}>
        {title}
      </h2>
      {children}
    </section>
  );
}

export function focusSection(id: (typeof SETTINGS_SECTIONS)[number]['id']): void {
  document.getElementById(`${id}-title`)?.focus();
}

/** "3 min ago", with the absolute time on hover. */
export function When({ iso, empty = '—' }: { iso: string | null | undefined; empty?: string }) {
  if (!iso) return <span className="muted">{empty}</span>;
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatRelative(iso)}
    </time>
  );
}
