import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client';
import { EndpointForm } from './endpoint-form-fields';
import { emptyFormState, formStateFromEndpoint, type Endpoint } from './endpoint-form-state';
import { buildPatchBody } from './endpoint-form-request';
import { BacktestReport } from './endpoint-form-backtest';
import { buildEndpoint } from './endpoint-test-data';

afterEach(cleanup);

function renderForm({
  saveError = null as unknown,
  initial = emptyFormState('UTC'),
  siblings = [] as { id: string; name: string }[],
} = {}) {
  const onSave = vi.fn();
  const form = (
    <EndpointForm
      initial={initial}
      submitLabel="Create endpoint"
      cancelTo="/jobs/job_1"
      isPending={false}
      saveError={saveError}
      onSave={onSave}
      rules={{ siblings, endpointId: null }}
    />
  );
  render(<RouterProvider router={createMemoryRouter([{ path: '*', element: form }])} />);
  return onSave;
}

const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

function fillBasics() {
  type('Name', 'Export');
  type('URL', 'https://example.com/x');
}

function errorOf(label: string): string | null {
  const input = screen.getByLabelText(label);
  const id = input.getAttribute('aria-describedby');
  return id ? (document.getElementById(id)?.textContent ?? null) : null;
}

describe('the rules editor', () => {
  it('reads each condition back in words and saves successWhen and rules as the API takes them', () => {
    const onSave = renderForm({ siblings: [{ id: '0b5e7f7e-3c1f-4d6e-9a0b-1c2d3e4f5a6b', name: 'Import' }] });
    fillBasics();
    type('Statuses that may succeed', '2xx, 304');
    fireEvent.click(screen.getByRole('button', { name: 'Add a success condition' }));
    type('Success condition 1 path', '$.ok');
    type('Success condition 1 value', 'true');
    expect(screen.getByText('Reads: ok is true')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Add a rule' }));
    type('Rule 1 name', 'backlog high');
    fireEvent.click(screen.getByRole('button', { name: 'Add a condition to rule 1' }));
    type('Rule 1 condition 1 path', '$.backlog');
    type('Rule 1 condition 1 operator', 'gt');
    type('Rule 1 condition 1 value', '100');
    expect(screen.getByText('Reads: backlog is greater than 100')).toBeTruthy();
    type('Rule 1 interval', '1');
    type('Rule 1 interval unit', 'min');
    type('Rule 1 runs another endpoint', '0b5e7f7e-3c1f-4d6e-9a0b-1c2d3e4f5a6b');

    fireEvent.click(screen.getByRole('button', { name: 'Add a rule' }));
    type('Rule 2 name', 'down');
    fireEvent.click(screen.getByRole('button', { name: 'Add a condition to rule 2' }));
    type('Rule 2 condition 1 path', '$.status');
    type('Rule 2 condition 1 operator', 'matches');
    type('Rule 2 condition 1 value', '^(down|maintenance)$');
    expect(screen.getByText('Reads: status matches the pattern /^(down|maintenance)$/')).toBeTruthy();
    type('Rule 2 timing', 'pause');
    type('Rule 2 pause', '10');

    fireEvent.click(screen.getByRole('button', { name: 'Create endpoint' }));
    expect(onSave).toHaveBeenCalledWith(
      expect.objectContaining({
        successWhen: { status: ['2xx', 304], all: [{ path: '$.ok', op: 'eq', value: true }] },
        rules: [
          {
            name: 'backlog high',
            when: { all: [{ path: '$.backlog', op: 'gt', value: 100 }] },
            then: { intervalMs: 60_000, runEndpoint: '0b5e7f7e-3c1f-4d6e-9a0b-1c2d3e4f5a6b' },
          },
          {
            name: 'down',
            when: { all: [{ path: '$.status', op: 'matches', value: '^(down|maintenance)$' }] },
            then: { pauseMs: 600_000 },
          },
        ],
      }),
    );
  });

  it('saves no rules when none are entered', () => {
    const onSave = renderForm();
    fillBasics();
    fireEvent.click(screen.getByRole('button', { name: 'Create endpoint' }));
    expect(onSave).toHaveBeenCalledWith(expect.objectContaining({ successWhen: null, rules: null }));
  });

  it('marks an incomplete rule at its inputs and does not save', () => {
    const onSave = renderForm();
    fillBasics();
    fireEvent.click(screen.getByRole('button', { name: 'Add a rule' }));
    fireEvent.click(screen.getByRole('button', { name: 'Add a condition to rule 1' }));
    type('Rule 1 condition 1 value', '5');
    type('Statuses that may succeed', '2xx, two hundred');
    fireEvent.click(screen.getByRole('button', { name: 'Create endpoint' }));
    expect(onSave).not.toHaveBeenCalled();
    expect(errorOf('Rule 1 name')).toBe('enter a name, e.g. backlog high');
    expect(errorOf('Rule 1 condition 1 path')).toMatch(/enter what to read/);
    expect(errorOf('Rule 1 interval')).toBe('enter how long');
    expect(errorOf('Statuses that may succeed')).toMatch(/"two" is not a status/);
    expect(screen.getByRole('alert').textContent).toContain('Check the 4 fields marked below');
    // The first invalid input takes focus.
    expect(document.activeElement).toBe(screen.getByLabelText('Statuses that may succeed'));
  });

  it("shows the API's refusal at the input it names", () => {
    const initial = formStateFromEndpoint({
      ...buildEndpoint(),
      rules: [
        {
          name: 'backlog high',
          when: { all: [{ path: '$.backlog', op: 'gt', value: 100 }] },
          then: { intervalMs: 10_000 },
        },
      ],
    } as Endpoint);
    renderForm({
      initial,
      saveError: new ApiError(400, 'VALIDATION_ERROR', 'invalid', [
        {
          field: 'rules[0].then.intervalMs',
          message: "intervalMs (10000 ms) is below this account's minimum interval of 60000 ms",
        },
        { field: 'rules[0].when.all[0]', message: 'bad condition' },
      ]),
    });
    expect(errorOf('Rule 1 interval')).toMatch(/below this account's minimum interval/);
    expect(errorOf('Rule 1 condition 1 path')).toBe('bad condition');
    expect(screen.getByText('Reads: backlog is greater than 100')).toBeTruthy();
  });

  it('sends nothing for unchanged rules on edit, and the whole list when one changes', () => {
    const endpoint = {
      ...buildEndpoint(),
      successWhen: { status: ['2xx'], all: [{ path: '$.ok', op: 'eq', value: true }] },
      rules: [
        { name: 'slow', when: { all: [{ path: '$durationMs', op: 'gt', value: 2000 }] }, then: { analyse: true } },
      ],
    } as Endpoint;
    const onSave = renderForm({ initial: formStateFromEndpoint(endpoint) });
    fireEvent.click(screen.getByRole('button', { name: 'Create endpoint' }));
    expect(buildPatchBody(onSave.mock.calls[0]![0], endpoint)).toEqual({});
    type('Rule 1 condition 1 value', '3000');
    fireEvent.click(screen.getByRole('button', { name: 'Create endpoint' }));
    expect(buildPatchBody(onSave.mock.calls[1]![0], endpoint)).toEqual({
      rules: [
        { name: 'slow', when: { all: [{ path: '$durationMs', op: 'gt', value: 3000 }] }, then: { analyse: true } },
      ],
    });
  });
});

describe('the backtest report', () => {
  it('lists the runs whose status would change, the rules per run and the calls a day', () => {
    render(
      <BacktestReport
        result={{
          runsReplayed: 2,
          from: '2026-03-01T10:00:00.000Z',
          to: '2026-03-01T10:05:00.000Z',
          recorded: { successCount: 2, failureCount: 0, callsPerDay: 288 },
          replayed: { successCount: 1, failureCount: 1, callsPerDay: 1440 },
          statusChanges: [
            {
              runId: 'run_2',
              startedAt: '2026-03-01T10:05:00.000Z',
              recordedStatus: 'success',
              status: 'failed',
              errorKind: 'assertion_failed',
              errorMessage: 'ok is true failed: saw false',
            },
          ],
          runs: [
            {
              runId: 'run_1',
              startedAt: '2026-03-01T10:00:00.000Z',
              statusCode: 200,
              recordedStatus: 'success',
              status: 'success',
              errorKind: null,
              errorMessage: null,
              recordedRulesMatched: [],
              rulesMatched: [],
            },
            {
              runId: 'run_2',
              startedAt: '2026-03-01T10:05:00.000Z',
              statusCode: 200,
              recordedStatus: 'success',
              status: 'failed',
              errorKind: 'assertion_failed',
              errorMessage: 'ok is true failed: saw false',
              recordedRulesMatched: [],
              rulesMatched: ['backlog high'],
            },
          ],
          schedule: [],
          endpointRuns: [],
          analysesRequested: 0,
        }}
      />,
    );
    expect(screen.getByRole('status').textContent).toBe(
      'Replayed 2 runs: 1 run would change status; calls a day 1,440 with these rules against 288 recorded.',
    );
    const changes = screen.getByRole('table', { name: 'Runs whose status would change' });
    expect(changes.textContent).toContain('ok is true failed: saw false');
    const perRun = screen.getByRole('table', { name: 'Rules matched per run (latest 2 of 2)' });
    const rows = perRun.querySelectorAll('tbody tr');
    expect(rows[0]!.textContent).toContain('backlog high');
    expect(rows[1]!.textContent).toContain('none');
  });
});
