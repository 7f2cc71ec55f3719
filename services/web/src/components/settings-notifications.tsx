/**
 * Settings > Notifications (issue #16, opt-in): the failing and auto-pause thresholds (PATCH
 * /api/account/settings), the channels (create webhook / Slack / email with their events, send a test,
 * delete) and the latest deliveries with their status, attempts and error.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError, unwrap, type Schemas } from '../api/client';
import { Field, FormError } from './field';
import { ACCOUNT_KEY, useAccount } from './settings-account';
import { When } from './settings-section';

const CHANNELS = ['notification-channels'] as const;
const DELIVERIES = ['notifications'] as const;
type NotificationEvent = Schemas['NotificationChannel']['events'][number];
/**
 * The events come from packages/core (NOTIFICATION_EVENTS) through the OpenAPI types: a Record over
 * that union fails the build when core adds or drops an event, so the list cannot drift. The web
 * does not import @kairos/core itself (its index would bundle zod and cron-parser).
 */
const EVENT_KEYS: Record<NotificationEvent, true> = {
  'endpoint.failing': true,
  'endpoint.recovered': true,
  'endpoint.auto_paused': true,
  'endpoint.paused_by_planner': true,
  'quota.nearly_exhausted': true,
};
const EVENTS = Object.keys(EVENT_KEYS) as NotificationEvent[];
type ChannelType = 'webhook' | 'slack' | 'email';

export function NotificationSettings() {
  return (
    <>
      <ThresholdsForm />
      <h3>Channels</h3>
      <ChannelList />
      <CreateChannelForm />
      <h3>Latest notifications</h3>
      <DeliveryList />
    </>
  );
}

function ThresholdsForm() {
  const queryClient = useQueryClient();
  const account = useAccount();
  const [failing, setFailing] = useState<string | null>(null);
  const [autoPause, setAutoPause] = useState<string | null>(null);
  const settings = account.data?.settings;
  const save = useMutation({
    mutationFn: (body: { notifyFailureThreshold: number; autoPauseAfterFailures: number | null }) =>
      unwrap(api.PATCH('/api/account/settings', { body })),
    onSuccess: (updated) => {
      queryClient.setQueryData(ACCOUNT_KEY, updated);
      setFailing(null);
      setAutoPause(null);
    },
  });
  const failingShown = failing ?? (settings ? String(settings.notifyFailureThreshold) : '');
  const autoPauseShown = autoPause ?? (settings?.autoPauseAfterFailures ? String(settings.autoPauseAfterFailures) : '');
  const errors = save.error instanceof ApiError ? save.error.fieldErrors() : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({
      notifyFailureThreshold: Number(failingShown),
      autoPauseAfterFailures: autoPauseShown.trim() === '' ? null : Number(autoPauseShown),
    });
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Failure thresholds">
      <Field
        label="Failing after (consecutive failures)"
        error={errors.notifyFailureThreshold}
        hint="endpoint.failing is sent once when an endpoint reaches this many failures in a row, endpoint.recovered at its next success (1 to 1000, default 3)."
      >
        <input
          type="number"
          min={1}
          max={1000}
          value={failingShown}
          disabled={!settings}
          onChange={(event) => setFailing(event.target.value)}
        />
      </Field>
      <Field
        label="Auto-pause after (consecutive failures)"
        error={errors.autoPauseAfterFailures}
        hint="Default for endpoints that set none: pause an endpoint after this many failures in a row (endpoint.auto_paused is sent; resume it on its page). Empty: never."
      >
        <input
          type="number"
          min={1}
          max={1000}
          value={autoPauseShown}
          disabled={!settings}
          onChange={(event) => setAutoPause(event.target.value)}
        />
      </Field>
      <div className="actions">
        <button type="submit" disabled={save.isPending || (failing === null && autoPause === null)}>
          {save.isPending ? 'Saving…' : 'Save thresholds'}
        </button>
      </div>
      <FormError message={save.error && Object.keys(errors).length === 0 ? save.error.message : null} />
    </form>
  );
}

function ChannelList() {
  const queryClient = useQueryClient();
  const channels = useQuery({
    queryKey: CHANNELS,
    queryFn: () => unwrap(api.GET('/api/notification-channels', { params: { query: { limit: 100 } } })),
  });
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: CHANNELS });
    void queryClient.invalidateQueries({ queryKey: DELIVERIES });
  };
  const test = useMutation({
    mutationFn: (channelId: string) =>
      unwrap(api.POST('/api/notification-channels/{channelId}/test', { params: { path: { channelId } } })),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (channelId: string) =>
      unwrap(api.DELETE('/api/notification-channels/{channelId}', { params: { path: { channelId } } })),
    onSettled: refresh,
  });
  if (channels.error) return <p className="form-error">{channels.error.message}</p>;
  if (!channels.data) return <p className="muted">Loading…</p>;
  if (channels.data.length === 0) return <p className="muted">No channels: nothing is sent.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th>Name</th>
          <th>Type</th>
          <th>Destination</th>
          <th>Events</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {channels.data.map((channel: Schemas['NotificationChannel']) => (
          <tr key={channel.id}>
            <td>{channel.name}</td>
            <td>{channel.type}</td>
            <td>{channel.url ?? channel.recipients.join(', ')}</td>
            <td>{channel.events.length === EVENTS.length ? 'all' : channel.events.join(', ')}</td>
            <td className="actions">
              <button type="button" disabled={test.isPending} onClick={() => test.mutate(channel.id)}>
                Send test
              </button>
              <button
                type="button"
                className="danger"
                disabled={remove.isPending}
                onClick={() => {
                  if (window.confirm(`Delete the channel "${channel.name}"?`)) remove.mutate(channel.id);
                }}
              >
                Delete
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CreateChannelForm() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [type, setType] = useState<ChannelType>('webhook');
  const [destination, setDestination] = useState('');
  const [events, setEvents] = useState<NotificationEvent[]>([...EVENTS]);
  const create = useMutation({
    mutationFn: () => {
      const body: Schemas['CreateNotificationChannelInput'] =
        type === 'email'
          ? {
              name,
              type,
              events,
              recipients: destination
                .split(',')
                .map((item) => item.trim())
                .filter(Boolean),
            }
          : { name, type, events, url: destination.trim() };
      return unwrap(api.POST('/api/notification-channels', { body }));
    },
    onSuccess: () => {
      setName('');
      setDestination('');
      void queryClient.invalidateQueries({ queryKey: CHANNELS });
    },
  });
  const errors = create.error instanceof ApiError ? create.error.fieldErrors() : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} noValidate aria-label="New notification channel">
      <Field label="Name" error={errors.name}>
        <input value={name} onChange={(event) => setName(event.target.value)} />
      </Field>
      <Field label="Type" error={errors.type}>
        <select value={type} onChange={(event) => setType(event.target.value as ChannelType)}>
          <option value="webhook">Webhook (Standard Webhooks, signed with the signing key)</option>
          <option value="slack">Slack incoming webhook</option>
          <option value="email">Email</option>
        </select>
      </Field>
      <Field
        label={type === 'email' ? 'Recipients (comma-separated)' : 'URL'}
        error={type === 'email' ? errors.recipients : errors.url}
        hint={
          type === 'webhook'
            ? "Verify with the standardwebhooks library; the secret is 'whsec_' + base64 of your signing key."
            : undefined
        }
      >
        <input value={destination} onChange={(event) => setDestination(event.target.value)} />
      </Field>
      <fieldset>
        <legend>Events</legend>
        {EVENTS.map((event) => (
          <label key={event}>
            <input
              type="checkbox"
              checked={events.includes(event)}
              onChange={(change) =>
                setEvents(change.target.checked ? [...events, event] : events.filter((item) => item !== event))
              }
            />{' '}
            {event}
          </label>
        ))}
      </fieldset>
      <div className="actions">
        <button type="submit" disabled={create.isPending || name.trim() === ''}>
          {create.isPending ? 'Creating…' : 'Create channel'}
        </button>
      </div>
      <FormError message={create.error?.message} />
    </form>
  );
}

function DeliveryList() {
  const deliveries = useQuery({
    queryKey: DELIVERIES,
    queryFn: () => unwrap(api.GET('/api/notifications', { params: { query: { limit: 20 } } })),
  });
  if (deliveries.error) return <p className="form-error">{deliveries.error.message}</p>;
  if (!deliveries.data) return <p className="muted">Loading…</p>;
  if (deliveries.data.length === 0) return <p className="muted">No notifications yet.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th>When</th>
          <th>Event</th>
          <th>Status</th>
          <th>Attempts</th>
          <th>Response / error</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.data.map((row: Schemas['Notification']) => (
          <tr key={row.id}>
            <td>
              <When iso={row.createdAt} />
            </td>
            <td>{row.event}</td>
            <td>{row.status}</td>
            <td>{row.attempts}</td>
            <td>{row.error ?? row.responseCode ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
