import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client';
import { EndpointForm } from './endpoint-form-fields';
import { DURATION_WORDS } from './endpoint-form-issues';
import { emptyFormState } from './endpoint-form-state';

afterEach(cleanup);

function renderForm(saveError: unknown = null, onSave = vi.fn()) {
  // A data router, as in the app: the form holds a navigation while it has unsaved changes.
  const form = (
    <EndpointForm
      initial={emptyFormState('UTC')}
      submitLabel="Create endpoint"
      cancelTo="/jobs/job_1"
      isPending={false}
      saveError={saveError}
      onSave={onSave}
    />
  );
  render(<RouterProvider router={createMemoryRouter([{ path: '*', element: form }])} />);
  return onSave;
}

function errorOf(label: string): string | null {
  const input = screen.getByLabelText(label, { exact: true });
  const ids = input.getAttribute('aria-describedby')?.split(' ') ?? [];
  return (
    ids.map((id) => document.getElementById(id)).find((node) => node?.className === 'field-error')?.textContent ?? null
  );
}

describe('EndpointForm', () => {
  it('checks cheap things before calling the API', () => {
    const onSave = renderForm();
    fireEvent.click(screen.getByRole('button', { name: 'Create endpoint' }));
    expect(onSave).not.toHaveBeenCalled();
    expect(errorOf('Name')).toBe('is required');
    expect(errorOf('URL')).toBe('is required');
    expect(screen.getByRole('alert').textContent).toContain('The endpoint was not saved');
  });

  it('sends the values in milliseconds', () => {
    const onSave = renderForm();
    fireEvent.change(screen.getByLabelText('Name', { exact: true }), { target: { value: 'Export' } });
    fireEvent.change(screen.getByLabelText('URL'), { target: { value: 'https://example.com/x' } });
    fireEvent.change(screen.getByLabelText('Interval'), { target: { value: '90' } });
    fireEvent.change(screen.getByLabelText('Period unit'), { target: { value: 's' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create endpoint' }));
    expect(onSave).toHaveBeenCalledWith(expect.objectContaining({ name: 'Export', baselineIntervalMs: 90_000 }));
  });

  it('binds every duration field to its own value and unit', () => {
    const onSave = renderForm();
    fireEvent.change(screen.getByLabelText('Name', { exact: true }), { target: { value: 'Export' } });
    fireEvent.change(screen.getByLabelText('URL'), { target: { value: 'https://example.com/x' } });
    const durations: [label: string, unitLabel: string, amount: string, unit: string][] = [
      ['Interval', 'Period unit', '10', 'min'],
      ['Safety floor (optional)', 'Floor unit', '2', 'min'],
      ['Ceiling (optional)', 'Ceiling unit', '1', 'h'],
      ['Jitter (optional)', 'Jitter unit', '30', 's'],
      ['Timeout', 'Timeout unit', '5', 's'],
    ];
    for (const [label, unitLabel, amount, unit] of durations) {
      fireEvent.change(screen.getByLabelText(label), { target: { value: amount } });
      fireEvent.change(screen.getByLabelText(unitLabel), { target: { value: unit } });
    }
    fireEvent.click(screen.getByRole('button', { name: 'Create endpoint' }));
    expect(onSave).toHaveBeenCalledWith(
      expect.objectContaining({
        baselineIntervalMs: 600_000,
        minIntervalMs: 120_000,
        maxIntervalMs: 3_600_000,
        jitterMs: 30_000,
        timeoutMs: 5_000,
      }),
    );
  });

  it('shows the API issues of the duration fields at those fields', () => {
    renderForm(
      new ApiError(400, 'VALIDATION_ERROR', 'invalid', [
        { field: 'minIntervalMs', message: 'floor too low' },
        { field: 'maxIntervalMs', message: 'ceiling below floor' },
        { field: 'jitterMs', message: 'jitter too large' },
        { field: 'timeoutMs', message: 'timeout too long' },
      ]),
    );
    // Each at its own field, in the form's words (the API's speak of milliseconds).
    expect(errorOf('Safety floor (optional)')).toBe(DURATION_WORDS.minInterval);
    expect(errorOf('Ceiling (optional)')).toBe(DURATION_WORDS.maxInterval);
    expect(errorOf('Jitter (optional)')).toBe(DURATION_WORDS.jitter);
    expect(errorOf('Timeout')).toBe(DURATION_WORDS.timeout);
  });

  it('shows the API issues at their fields and the rest on top', () => {
    const error = new ApiError(400, 'VALIDATION_ERROR', 'invalid', [
      { field: 'baselineIntervalMs', message: 'baselineIntervalMs must be at least 1000 ms' },
      { field: 'url', message: 'must be an absolute http:// or https:// URL' },
      { field: 'extra', message: 'unknown field "extra"' },
    ]);
    renderForm(error);
    expect(errorOf('Interval')).toBe(DURATION_WORDS.interval);
    expect(errorOf('Interval')).toContain('at least 1 second');
    expect(errorOf('URL')).toBe('must be an absolute http:// or https:// URL');
    expect(screen.getByRole('alert').textContent).toContain('extra: unknown field "extra"');
  });

  it('shows cron and time zone instead of the interval for a cron baseline', () => {
    renderForm();
    fireEvent.click(screen.getByLabelText('Cron schedule'));
    expect(screen.queryByLabelText('Interval')).toBeNull();
    expect(screen.getByLabelText('Cron expression')).toBeTruthy();
    expect(screen.getByLabelText('Time zone')).toBeTruthy();
  });
});
