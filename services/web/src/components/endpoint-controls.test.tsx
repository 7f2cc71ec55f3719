/** The control names browser tests rely on, per endpoint state (rendering only; nothing is sent). */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { EndpointActions } from './endpoint-actions';
import type { Endpoint } from './endpoint-queries';
import { EndpointSchedulePanel } from './endpoint-schedule-panel';
import { buildEndpoint } from './endpoint-test-data';

afterEach(cleanup);

function renderPage(facts: Endpoint) {
  return render(
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter>
        <EndpointActions endpoint={facts} />
        <EndpointSchedulePanel endpoint={facts} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const button = (name: string) => screen.queryByRole('button', { name, hidden: true });

describe('endpoint controls', () => {
  it('an active interval endpoint offers every action, pause and both hint forms', () => {
    renderPage(buildEndpoint());
    for (const name of [
      'Test now',
      'Run now',
      'Pause',
      'Clear hints',
      'Reset failures',
      'Archive endpoint',
      'Set interval hint',
      'Set one-shot hint',
    ]) {
      expect(button(name), name).not.toBeNull();
    }
    expect(button('Resume')).toBeNull();
    expect(screen.getByRole('link', { name: 'Edit' }).getAttribute('href')).toBe('/endpoints/e1/edit');
    expect(screen.getByLabelText('Pause until')).toBeTruthy();
    expect(screen.getByLabelText('Pause reason')).toBeTruthy();
    expect(screen.getByLabelText('Run once at')).toBeTruthy();
  });

  it('a paused endpoint offers Resume', () => {
    renderPage(buildEndpoint({ status: 'paused', pausedUntil: new Date(Date.now() + 3_600_000).toISOString() }));
    expect(button('Resume')).not.toBeNull();
  });

  it('a cron endpoint has no interval hint form', () => {
    renderPage(
      buildEndpoint({ baselineIntervalMs: null, baselineCron: '*/5 * * * *', nextRunSource: 'baseline-cron' }),
    );
    expect(button('Set interval hint')).toBeNull();
    expect(button('Set one-shot hint')).not.toBeNull();
  });

  it('an archived endpoint has no actions', () => {
    renderPage(buildEndpoint({ status: 'archived', archivedAt: new Date().toISOString(), nextRunAt: null }));
    for (const name of ['Test now', 'Run now', 'Pause', 'Resume', 'Clear hints', 'Archive endpoint'])
      expect(button(name)).toBeNull();
    expect(screen.getByText('This endpoint is archived: it no longer runs.')).toBeTruthy();
  });
});
