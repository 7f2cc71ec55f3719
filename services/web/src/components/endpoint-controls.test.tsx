/** The control names browser tests rely on, per endpoint state (rendering only; nothing is sent). */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { EndpointActions } from './endpoint-actions';
import type { Endpoint } from './endpoint-queries';
import { EndpointSchedulePanel } from './endpoint-schedule-panel';

afterEach(cleanup);

function endpoint(overrides: Partial<Endpoint> = {}): Endpoint {
  const now = new Date().toISOString();
  return {
    id: 'e1',
    jobId: 'j1',
    name: 'Check backlog',
    description: null,
    url: 'https://example.com/backlog',
    method: 'GET',
    baselineIntervalMs: 60_000,
    baselineCron: null,
    timezone: 'UTC',
    minIntervalMs: null,
    maxIntervalMs: null,
    jitterMs: 0,
    timeoutMs: 30_000,
    maxResponseSizeKb: 100,
    retry: null,
    propagateTrace: true,
    headersJson: null,
    bodyJson: null,
    status: 'active',
    jobPaused: false,
    nextRunAt: new Date(Date.now() + 30_000).toISOString(),
    nextRunSource: 'baseline-interval',
    lastRunAt: null,
    lastStatus: null,
    failureCount: 0,
    backoffMultiplier: 1,
    pausedUntil: null,
    pauseReason: null,
    autoPauseAfterFailures: null,
    autoPausedAt: null,
    hints: { interval: null, oneShot: null },
    archivedAt: null,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

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
    renderPage(endpoint());
    for (const name of [
      'Test now',
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
    renderPage(endpoint({ status: 'paused', pausedUntil: new Date(Date.now() + 3_600_000).toISOString() }));
    expect(button('Resume')).not.toBeNull();
  });

  it('a cron endpoint has no interval hint form', () => {
    renderPage(endpoint({ baselineIntervalMs: null, baselineCron: '*/5 * * * *', nextRunSource: 'baseline-cron' }));
    expect(button('Set interval hint')).toBeNull();
    expect(button('Set one-shot hint')).not.toBeNull();
  });

  it('an archived endpoint has no actions', () => {
    renderPage(endpoint({ status: 'archived', archivedAt: new Date().toISOString(), nextRunAt: null }));
    for (const name of ['Test now', 'Pause', 'Resume', 'Clear hints', 'Archive endpoint'])
      expect(button(name)).toBeNull();
    expect(screen.getByText('This endpoint is archived: it no longer runs.')).toBeTruthy();
  });
});
