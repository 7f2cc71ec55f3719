/**
 * The table API keys and connected devices share: name, prefix, when made, when last used, any
 * further dates, then the row's action (a Revoke button, or what replaces it).
 */
import type { ReactNode } from 'react';
import { When } from './settings-section';

interface Credential {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

interface DateColumn<T> {
  label: string;
  iso: (item: T) => string | null;
  /** Shown when the date is null (default —). */
  empty?: string;
}

export function CredentialTable<T extends Credential>({
  caption,
  items,
  createdLabel,
  moreDates = [],
  action,
}: {
  caption: string;
  items: T[];
  /** The createdAt column's heading ("Created", "Connected"). */
  createdLabel: string;
  moreDates?: DateColumn<T>[];
  action: (item: T) => ReactNode;
}) {
  const dates: DateColumn<T>[] = [
    { label: createdLabel, iso: (item) => item.createdAt },
    { label: 'Last used', iso: (item) => item.lastUsedAt, empty: 'Never' },
    ...moreDates,
  ];
  return (
    <div className="table-wrap">
      <table className="settings-table stack-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            {dates.map((date) => (
              <th key={date.label} scope="col">
                {date.label}
              </th>
            ))}
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.id}>
              <th scope="row">{item.name}</th>
              <td data-label="Prefix">
                <code>{item.prefix}…</code>
              </td>
              {dates.map((date) => (
                <td key={date.label} data-label={date.label}>
                  <When iso={date.iso(item)} empty={date.empty} />
                </td>
              ))}
              <td className="settings-table-actions">{action(item)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
