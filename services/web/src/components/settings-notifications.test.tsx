/**
 * Settings > Notifications against a mocked API client: the channels listed, a channel created
 * (submit held back without a name; a 400's field issue shown beside its input; the request body
 * as the API expects it), the latest deliveries with status, attempts and error.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Client from '../api/client';
import type { Schemas } from '../api/client';
import { NotificationSettings } from './settings-notifications';

const { get, post } = vi.hoisted(() => ({ get: vi.fn(), post: vi.fn() }));
vi.mock('../api/client', async (original) => ({
  ...(await original<typeof Client>()),
  api: { GET: get, POST: post },
}));

afterEach(() => {
  cleanup();
  get.mockReset();
  post.mockReset();
});

const ALL_EVENTS: Schemas['NotificationChannel']['events'] = [
  'endpoint.failing',
  'endpoint.recovered',
  'endpoint.auto_paused',
  'endpoint.paused_by_planner',
  'quota.nearly_exhausted',
];
const at = '2026-11-23T22:00:00.000Z';
const ok = (data: unknown, status = 200) => ({ data, response: new Response(null, { status }) });

const channels: Schemas['NotificationChannel'][] = [
  {
    id: 'c1',
    name: 'On-call hook',
    type: 'webhook',
    url: 'https://hooks.test/k',
    recipients: [],
    pendingRecipients: [],
    events: ALL_EVENTS,
    createdAt: at,
  },
  {
    id: 'c2',
    name: 'Ops mail',
    type: 'email',
    url: null,
    recipients: ['a@test.invalid', 'b@test.invalid'],
    pendingRecipients: ['b@test.invalid'],
    events: ['endpoint.auto_paused'],
    createdAt: at,
  },
];
const deliveries = [
  {
    id: 'n1',
    channelId: 'c1',
    event: 'endpoint.paused_by_planner',
    endpointId: 'e1',
    status: 'delivered',
    attempts: 1,
    responseCode: 204,
    error: null,
    createdAt: at,
  },
  {
    id: 'n2',
    channelId: 'c2',
    event: 'endpoint.auto_paused',
    endpointId: 'e2',
    status: 'failed',
    attempts: 5,
    responseCode: null,
    error: 'SMTP refused',
    createdAt: at,
  },
];

function renderSection() {
  get.mockImplementation((path: string) => {
    if (path === '/api/notification-channels') return Promise.resolve(ok(channels));
    if (path === '/api/notifications') return Promise.resolve(ok(deliveries));
    if (path === '/api/account')
      return Promise.resolve(ok({ settings: { notifyFailureThreshold: 3, autoPauseAfterFailures: null } }));
    return Promise.reject(new Error(`unexpected GET ${path}`));
  });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <NotificationSettings />
    </QueryClientProvider>,
  );
}

describe('notification settings', () => {
  it('lists the channels, with "all" for a channel receiving every event', async () => {
    renderSection();
    const hook = (await screen.findByText('On-call hook')).closest('tr')!;
    expect(within(hook).getByText('https://hooks.test/k')).toBeTruthy();
    expect(within(hook).getByText('all')).toBeTruthy();
    const mail = screen.getByText('Ops mail').closest('tr')!;
    expect(within(mail).getByText('a@test.invalid, b@test.invalid')).toBeTruthy();
    expect(within(mail).getByText('(awaiting confirmation: b@test.invalid)')).toBeTruthy();
    expect(within(mail).getByText('endpoint.auto_paused')).toBeTruthy();
  });

  it('lists the latest deliveries with status, attempts and the response or error', async () => {
    renderSection();
    const delivered = (await screen.findByText('endpoint.paused_by_planner', { selector: 'td' })).closest('tr')!;
    expect(within(delivered).getByText('delivered')).toBeTruthy();
    expect(within(delivered).getByText('204')).toBeTruthy();
    const failed = screen.getByText('SMTP refused').closest('tr')!;
    expect(within(failed).getByText('failed')).toBeTruthy();
    expect(within(failed).getByText('5')).toBeTruthy();
  });

  it('creates a channel: no request without a name (it says so), field issues shown, the chosen events sent', async () => {
    renderSection();
    const form = screen.getByRole('form', { name: 'New notification channel' });
    const submit = within(form).getByRole('button', { name: 'Create channel' }) as HTMLButtonElement;
    // Create is always offered: without a name it says what is missing and sends nothing.
    fireEvent.click(submit);
    expect(await within(form).findByText('Give the channel a name.')).toBeTruthy();
    expect(post).not.toHaveBeenCalled();
    // Every event of the shared list is offered and checked by default.
    for (const event of ALL_EVENTS) expect((within(form).getByLabelText(event) as HTMLInputElement).checked).toBe(true);

    fireEvent.change(within(form).getByLabelText('Name'), { target: { value: 'Pager' } });
    fireEvent.change(within(form).getByLabelText('URL'), { target: { value: 'not a url' } });
    post.mockResolvedValueOnce({
      error: {
        error: {
          code: 'VALIDATION_ERROR',
          message: 'Invalid input',
          details: { issues: [{ field: 'url', message: 'must be an absolute http(s) URL' }] },
        },
      },
      response: new Response(null, { status: 400 }),
    });
    expect(submit.disabled).toBe(false);
    fireEvent.click(submit);
    expect(await within(form).findByText('must be an absolute http(s) URL')).toBeTruthy();

    fireEvent.change(within(form).getByLabelText('URL'), { target: { value: ' https://hooks.test/pager ' } });
    fireEvent.click(within(form).getByLabelText('quota.nearly_exhausted'));
    post.mockResolvedValueOnce(ok({ ...channels[0], id: 'c3', name: 'Pager' }, 201));
    fireEvent.click(submit);
    await waitFor(() => expect(post).toHaveBeenCalledTimes(2));
    expect(post.mock.calls[1]).toEqual([
      '/api/notification-channels',
      {
        body: {
          name: 'Pager',
          type: 'webhook',
          url: 'https://hooks.test/pager',
          events: ALL_EVENTS.filter((event) => event !== 'quota.nearly_exhausted'),
        },
      },
    ]);
    // Cleared on success, ready for the next channel.
    await waitFor(() => expect((within(form).getByLabelText('Name') as HTMLInputElement).value).toBe(''));
  });
});
