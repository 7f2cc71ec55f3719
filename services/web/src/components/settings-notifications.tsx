/**
 * Settings > Notifications (opt-in): the failing and auto-pause thresholds (PATCH
 * /api/account/settings), the channels (create webhook / Slack / email with their events, send a test,
 * delete) and the latest deliveries with their status, attempts and error.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { api, ApiError, unwrap, type Schemas } from '../api/client';
import { Field, FormError } from './field';
import { ACCOUNT_KEY, useAccount } from './settings-account';
import { ActionButton } from './action-button';
import { useErrorFocus } from './form-errors';
import { numberIn } from './form-numbers';
import { focusSection, When } from './settings-section';

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

/** What the threshold fields take, in their own words (the API's bounds: 1 to 1000 failures). */
const FAILING_WORDS = 'Enter a whole number of failures from 1 to 1,000.';
const AUTO_PAUSE_WORDS = 'Enter a whole number of failures from 1 to 1,000, or leave it empty for never.';
const FAILURES = { min: 1, max: 1000, whole: true };

function ThresholdsForm() {
  const queryClient = useQueryClient();
  const account = useAccount();
  const [failing, setFailing] = useState<string | null>(null);
  const [autoPause, setAutoPause] = useState<string | null>(null);
  const [invalid, setInvalid] = useState<{ failing: boolean; autoPause: boolean } | null>(null);
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
  const errorFocus = useErrorFocus(invalid ?? save.error);
  const failingShown = failing ?? (settings ? String(settings.notifyFailureThreshold) : '');
  const autoPauseShown = autoPause ?? (settings?.autoPauseAfterFailures ? String(settings.autoPauseAfterFailures) : '');
  const refused = save.error instanceof ApiError ? save.error.fieldErrors() : {};
  const failingBad = invalid?.failing || refused.notifyFailureThreshold !== undefined;
  const autoPauseBad = invalid?.autoPause || refused.autoPauseAfterFailures !== undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const threshold = numberIn(failingShown, FAILURES);
    const pauseAfter = autoPauseShown.trim() === '' ? null : numberIn(autoPauseShown, FAILURES);
    const found = { failing: threshold === null, autoPause: autoPauseShown.trim() !== '' && pauseAfter === null };
    setInvalid(found.failing || found.autoPause ? found : null);
    if (threshold === null || found.autoPause) save.reset();
    else save.mutate({ notifyFailureThreshold: threshold, autoPauseAfterFailures: pauseAfter });
  };
  return (
    <form ref={errorFocus} onSubmit={submit} noValidate aria-label="Failure thresholds">
      <Field
        label="Failing after (consecutive failures)"
        error={failingBad ? FAILING_WORDS : undefined}
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
        error={autoPauseBad ? AUTO_PAUSE_WORDS : undefined}
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
        <ActionButton type="submit" busy={save.isPending || !settings}>
          {save.isPending ? 'Saving…' : 'Save thresholds'}
        </ActionButton>
      </div>
      <FormError message={save.error && Object.keys(refused).length === 0 ? save.error.message : null} />
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
    // The row goes with its Delete button: focus moves to the section.
    onSuccess: () => focusSection('notifications'),
  });
  if (channels.error) return <p className="form-error">{channels.error.message}</p>;
  if (!channels.data) return <p className="muted">Loading…</p>;
  if (channels.data.length === 0) return <p className="muted">No channels: nothing is sent.</p>;
  return (
    <div className="table-wrap">
      <table className="stack-table" aria-label="Notification channels">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Destination</th>
            <th scope="col">Events</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {channels.data.map((channel: Schemas['NotificationChannel']) => (
            <tr key={channel.id}>
              <th scope="row">{channel.name}</th>
              <td data-label="Type">{channel.type}</td>
              <td data-label="Destination">
                <span>{channel.url ?? channel.recipients.join(', ')}</span>
                {channel.pendingRecipients.length > 0 ? (
                  <span className="muted"> (awaiting confirmation: {channel.pendingRecipients.join(', ')})</span>
                ) : null}
              </td>
              <td data-label="Events">{channel.events.length === EVENTS.length ? 'all' : channel.events.join(', ')}</td>
              <td className="actions">
                <ActionButton
                  busy={test.isPending}
                  onClick={() => test.mutate(channel.id)}
                  aria-label={`Send a test to ${channel.name}`}
                >
                  Send a test
                </ActionButton>
                <ActionButton
                  className="danger"
                  busy={remove.isPending}
                  onClick={() => {
                    if (window.confirm(`Delete the channel "${channel.name}"?`)) remove.mutate(channel.id);
                  }}
                  aria-label={`Delete ${channel.name}`}
                >
                  Delete
                </ActionButton>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The new channel's fields as typed → what is missing, in the form's words (none: an empty object). */
function checkChannel(name: string, type: ChannelType, destination: string, events: NotificationEvent[]) {
  const problems: Partial<Record<'name' | 'destination' | 'events', string>> = {};
  if (name.trim() === '') problems.name = 'Give the channel a name.';
  if (destination.trim() === '') {
    problems.destination = type === 'email' ? 'Enter at least one email address.' : 'Enter the URL to send to.';
  }
  if (events.length === 0) problems.events = 'Choose at least one event.';
  return problems;
}

function CreateChannelForm() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [type, setType] = useState<ChannelType>('webhook');
  const [destination, setDestination] = useState('');
  const [events, setEvents] = useState<NotificationEvent[]>([...EVENTS]);
  const [checked, setChecked] = useState<ReturnType<typeof checkChannel> | null>(null);
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
  const errorFocus = useErrorFocus(checked ?? create.error);
  // The API's issues by field (recipients.1 → recipients); each is said once, at its field.
  const refused: Record<string, string> = {};
  if (create.error instanceof ApiError) {
    for (const issue of create.error.issues) refused[issue.field.split('.')[0] ?? ''] ??= issue.message;
  }
  const errors = {
    name: checked?.name ?? refused.name,
    destination: checked?.destination ?? (type === 'email' ? refused.recipients : refused.url),
    events: checked?.events ?? refused.events,
  };
  const isPlaced = Object.values(errors).some(Boolean) || refused.type !== undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const problems = checkChannel(name, type, destination, events);
    const failed = Object.keys(problems).length > 0;
    setChecked(failed ? problems : null);
    if (failed) create.reset();
    else create.mutate();
  };
  return (
    <form ref={errorFocus} onSubmit={submit} noValidate aria-label="New notification channel">
      <Field label="Name" error={errors.name}>
        <input value={name} onChange={(event) => setName(event.target.value)} />
      </Field>
      <Field label="Type" error={refused.type}>
        <select value={type} onChange={(event) => setType(event.target.value as ChannelType)}>
          <option value="webhook">Webhook (Standard Webhooks, signed with the signing key)</option>
          <option value="slack">Slack incoming webhook</option>
          <option value="email">Email</option>
        </select>
      </Field>
      <Field
        label={type === 'email' ? 'Recipients (comma-separated)' : 'URL'}
        error={errors.destination}
        hint={
          type === 'webhook'
            ? "Verify with the standardwebhooks library; the secret is 'whsec_' + base64 of your signing key."
            : type === 'email'
              ? 'An address that is not a user of this account is sent a confirmation link and receives nothing else until it confirms.'
              : undefined
        }
      >
        <input value={destination} onChange={(event) => setDestination(event.target.value)} />
      </Field>
      <EventChoices events={events} onChange={setEvents} error={errors.events} />
      <div className="actions">
        <ActionButton type="submit" busy={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create channel'}
        </ActionButton>
      </div>
      <FormError message={create.error && !isPlaced ? create.error.message : null} />
    </form>
  );
}

/** One checkbox per event, each beside its name; an error ties to the first box. */
function EventChoices({
  events,
  onChange,
  error,
}: {
  events: NotificationEvent[];
  onChange: (events: NotificationEvent[]) => void;
  error: string | undefined;
}) {
  const errorId = useId();
  return (
    <fieldset className={`choices${error ? ' field-invalid' : ''}`}>
      <legend>Events</legend>
      {EVENTS.map((event, index) => (
        <label key={event} className="choice">
          <input
            type="checkbox"
            checked={events.includes(event)}
            aria-invalid={error && index === 0 ? true : undefined}
            aria-describedby={error && index === 0 ? errorId : undefined}
            onChange={(change) =>
              onChange(change.target.checked ? [...events, event] : events.filter((item) => item !== event))
            }
          />
          {event}
        </label>
      ))}
      {error ? (
        <small id={errorId} className="field-error">
          {error}
        </small>
      ) : null}
    </fieldset>
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
    <div className="table-wrap">
      <table className="stack-table" aria-label="Latest notifications">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Response / error</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.data.map((row: Schemas['Notification']) => (
            <tr key={row.id}>
              <td data-label="When">
                <When iso={row.createdAt} />
              </td>
              <td data-label="Event">{row.event}</td>
              <td data-label="Status">{row.status}</td>
              <td data-label="Attempts">{row.attempts}</td>
              <td data-label="Response / error">{row.error ?? row.responseCode ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
