import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Client from '../api/client';
import { EndpointForm } from './endpoint-form-fields';
import { buildScheduleDraft, PREVIEW_COUNT } from './endpoint-form-preview';
import { emptyFormState, formStateFromEndpoint } from './endpoint-form-state';
import { buildEndpoint } from './endpoint-test-data';

const post = vi.hoisted(() => vi.fn());
vi.mock('../api/client', async (original) => ({
  ...(await original<typeof Client>()),
  api: { POST: post },
}));

afterEach(() => {
  cleanup();
  post.mockReset();
});

const at = (minutes: number) => new Date(Date.UTC(2030, 0, 1, 12, minutes)).toISOString();

function answer(runs: { at: string; calendar?: unknown }[]) {
  post.mockResolvedValue({
    data: { runs: runs.map((run) => ({ source: 'baseline-interval', calendar: null, ...run })), jitterMs: 0 },
    response: new Response(null, { status: 200 }),
  });
}

function renderForm(endpointId: string | null) {
  const initial = formStateFromEndpoint(buildEndpoint({ baselineIntervalMs: 60_000 }));
  const form = (
    <EndpointForm
      initial={initial}
      submitLabel="Save changes"
      cancelTo="/jobs/j1"
      isPending={false}
      saveError={null}
      onSave={vi.fn()}
      rules={{ siblings: [], endpointId }}
    />
  );
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <RouterProvider router={createMemoryRouter([{ path: '*', element: form }])} />
    </QueryClientProvider>,
  );
}

/** The body of the latest preview request. */
const lastDraft = () => post.mock.calls.at(-1)![1].body as Record<string, unknown>;

describe('the schedule preview in the endpoint form', () => {
  it('asks for the next 5 runs with the draft schedule once typing pauses, and lists them', async () => {
    answer([
      { at: at(1) },
      { at: at(2) },
      { at: at(5), calendar: { kind: 'blackout', index: 0, from: at(3), to: at(5) } },
    ]);
    renderForm('e1');
    await waitFor(() => expect(post).toHaveBeenCalled());
    expect(post.mock.calls[0]![0]).toBe('/api/endpoints/{endpointId}/upcoming');
    expect(post.mock.calls[0]![1].params).toEqual({ path: { endpointId: 'e1' }, query: { count: PREVIEW_COUNT } });
    expect(lastDraft()).toMatchObject({ baselineIntervalMs: 60_000, jitterMs: 0, blackouts: null, activeFrom: null });

    const region = screen.getByRole('region', { name: 'Next runs with these settings' });
    const items = await within(region).findAllByRole('listitem');
    expect(items).toHaveLength(3);
    expect(items[2]!.textContent).toContain('after blackout window 1');

    // A change of the interval: one new request with the new value, after the pause.
    fireEvent.change(screen.getByLabelText('Interval'), { target: { value: '2' } });
    fireEvent.change(screen.getByLabelText('Interval'), { target: { value: '3' } });
    await waitFor(() => expect(lastDraft()).toMatchObject({ baselineIntervalMs: 180_000 }));
    expect(
      post.mock.calls.some((call) => (call[1].body as { baselineIntervalMs: number }).baselineIntervalMs === 120_000),
    ).toBe(false);
  });

  it('sends the calendar: the active period and a blackout window added in the editor', async () => {
    answer([{ at: at(1) }]);
    renderForm('e1');
    await waitFor(() => expect(post).toHaveBeenCalled());
    fireEvent.change(screen.getByLabelText('Active until (optional)'), { target: { value: '2030-02-01T09:00' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add blackout window' }));
    fireEvent.change(screen.getByLabelText('Window 1 cron expression'), { target: { value: '0 1 * * *' } });
    fireEvent.change(screen.getByLabelText('Window 1 lasts'), { target: { value: '2' } });
    await waitFor(() =>
      expect(lastDraft()).toMatchObject({
        activeUntil: new Date('2030-02-01T09:00').toISOString(),
        blackouts: [{ cron: '0 1 * * *', durationMs: 2 * 3_600_000 }],
      }),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Remove window 1' }));
    await waitFor(() => expect(lastDraft()).toMatchObject({ blackouts: null }));
  });

  it('shows the API’s refusal of a draft inline', async () => {
    post.mockResolvedValue({
      error: {
        error: {
          code: 'VALIDATION_ERROR',
          message: 'blackouts[0].durationMs: durationMs (86400000) must be less than the shortest gap',
          details: { field: 'blackouts[0].durationMs' },
        },
      },
      response: new Response(null, { status: 400 }),
    });
    renderForm('e1');
    const region = screen.getByRole('region', { name: 'Next runs with these settings' });
    expect((await within(region).findByRole('alert')).textContent).toContain('must be less than the shortest gap');
  });

  it('is not shown for a new endpoint, and asks for nothing', () => {
    renderForm(null);
    expect(screen.queryByRole('region', { name: 'Next runs with these settings' })).toBeNull();
    expect(post).not.toHaveBeenCalled();
  });

  it('a half-typed calendar says what to complete instead of asking', () => {
    const state = { ...emptyFormState('UTC'), activeFrom: 'not a time' };
    const draft = buildScheduleDraft(state);
    expect(draft).toEqual({ ok: false, message: expect.stringContaining('enter a date and time') });
  });
});
