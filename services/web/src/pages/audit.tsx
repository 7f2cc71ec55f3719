/**
 * Audit: the account's audit log, newest first (GET /api/audit-events, admins and owners), filtered
 * by action, actor (kind and id), resource and time range; the filters live in the query string so
 * a filtered view can be shared. Each event shows who acted, on what, and its details (for a change,
 * the fields before and after).
 */
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { api, type Schemas } from '../api/client';
import { Field } from '../components/field';
import { Pager, unwrapPage } from '../components/job-pager';
import { PageHeading, usePageTitle } from '../components/page-title';
import { When } from '../components/settings-section';
import { Empty, QueryView } from '../components/states';

type AuditEvent = Schemas['AuditEvent'];
export const AUDIT_PAGE_SIZE = 50;
const ACTOR_TYPES = ['user', 'api_key', 'access_token', 'planner', 'operator', 'system'] as const;
const FILTERS = ['action', 'actorType', 'actorId', 'targetType', 'since', 'until'] as const;
type Filter = (typeof FILTERS)[number];

/** A datetime-local value (the browser's time zone) as an ISO instant; '' stays ''. */
export function localToIso(value: string): string {
  if (!value) return '';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

/** An ISO instant as a datetime-local value in the browser's time zone. */
export function isoToLocal(iso: string | null): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function AuditPage() {
  usePageTitle('Audit');
  const [params, setParams] = useSearchParams();
  const offset = Number(params.get('offset') ?? 0) || 0;
  const filters = Object.fromEntries(FILTERS.map((name) => [name, params.get(name) ?? ''])) as Record<Filter, string>;
  const query = Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== '')) as Partial<
    Record<Filter, string>
  >;
  const events = useQuery({
    queryKey: ['audit-events', query, offset],
    queryFn: () =>
      unwrapPage(
        api.GET('/api/audit-events', {
          params: {
            query: {
              ...query,
              actorType: query.actorType as AuditEvent['actorType'] | undefined,
              limit: AUDIT_PAGE_SIZE,
              offset,
            },
          },
        }),
      ),
  });
  const apply = (next: Record<Filter, string>) => {
    const search = new URLSearchParams();
    for (const name of FILTERS) if (next[name]) search.set(name, next[name]);
    setParams(search);
  };
  return (
    <>
      <div className="page-header">
        <PageHeading>Audit</PageHeading>
      </div>
      <section className="panel" aria-labelledby="audit-filters-title">
        <h2 id="audit-filters-title">Filters</h2>
        <AuditFilters key={params.toString()} initial={filters} onApply={apply} />
      </section>
      <section className="panel" aria-labelledby="audit-events-title">
        <h2 id="audit-events-title">Events</h2>
        <QueryView query={events} what="Loading the audit log">
          {(page) =>
            page.items.length === 0 ? (
              <Empty title="No events match." />
            ) : (
              <>
                <AuditTable events={page.items} />
                <Pager
                  offset={offset}
                  limit={AUDIT_PAGE_SIZE}
                  total={page.total}
                  what="events"
                  onChange={(next) => {
                    const search = new URLSearchParams(params);
                    search.set('offset', String(next));
                    setParams(search);
                  }}
                />
              </>
            )
          }
        </QueryView>
      </section>
    </>
  );
}

function AuditFilters({
  initial,
  onApply,
}: {
  initial: Record<Filter, string>;
  onApply: (next: Record<Filter, string>) => void;
}) {
  const [values, setValues] = useState({
    ...initial,
    since: isoToLocal(initial.since),
    until: isoToLocal(initial.until),
  });
  const set = (name: Filter) => (event: { target: { value: string } }) =>
    setValues((current) => ({ ...current, [name]: event.target.value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({
      action: values.action.trim(),
      actorType: values.actorType,
      actorId: values.actorId.trim(),
      targetType: values.targetType.trim(),
      since: localToIso(values.since),
      until: localToIso(values.until),
    });
  };
  return (
    <form className="audit-filters" onSubmit={submit}>
      <Field label="Action" hint="e.g. endpoint.updated">
        <input value={values.action} onChange={set('action')} autoComplete="off" />
      </Field>
      <Field label="Resource" hint="e.g. job, endpoint, member">
        <input value={values.targetType} onChange={set('targetType')} autoComplete="off" />
      </Field>
      <Field label="Actor kind">
        <select value={values.actorType} onChange={set('actorType')}>
          <option value="">Anyone</option>
          {ACTOR_TYPES.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Actor id" hint="A user, API key or token id">
        <input value={values.actorId} onChange={set('actorId')} autoComplete="off" />
      </Field>
      <Field label="From">
        <input type="datetime-local" value={values.since} onChange={set('since')} />
      </Field>
      <Field label="Until">
        <input type="datetime-local" value={values.until} onChange={set('until')} />
      </Field>
      <div className="actions">
        <button type="submit" className="primary">
          Filter
        </button>{' '}
        <button
          type="button"
          onClick={() => onApply({ action: '', actorType: '', actorId: '', targetType: '', since: '', until: '' })}
        >
          Clear
        </button>
      </div>
    </form>
  );
}

function AuditTable({ events }: { events: AuditEvent[] }) {
  return (
    <table>
      <caption className="visually-hidden">Audit events</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Action</th>
          <th scope="col">Actor</th>
          <th scope="col">Resource</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        {events.map((event) => (
          <tr key={event.id}>
            <td>
              <When iso={event.createdAt} />
            </td>
            <th scope="row">
              <code>{event.action}</code>
            </th>
            <td>
              {event.actorType}
              {event.actorId ? <div className="muted">{event.actorId}</div> : null}
            </td>
            <td>
              {event.targetType ?? '—'}
              {event.targetId ? <div className="muted">{event.targetId}</div> : null}
            </td>
            <td>{event.details ? <code className="audit-details">{JSON.stringify(event.details)}</code> : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
