import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client';
import { EndpointForm } from './endpoint-form-fields';
import { emptyFormState } from './endpoint-form-state';

afterEach(cleanup);

function renderForm(saveError: unknown = null, onSave = vi.fn()) {
  render(
    <MemoryRouter>
      <EndpointForm
        initial={emptyFormState('UTC')}
        submitLabel="Create endpoint"
        cancelTo="/jobs/job_1"
        isPending={false}
        saveError={saveError}
        onSave={onSave}
      />
    </MemoryRouter>,
  );
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

  it('shows the API issues at their fields and the rest on top', () => {
    const error = new ApiError(400, 'VALIDATION_ERROR', 'invalid', [
      { field: 'baselineIntervalMs', message: 'baselineIntervalMs must be at least 1000 ms' },
      { field: 'url', message: 'must be an absolute http:// or https:// URL' },
      { field: 'extra', message: 'unknown field "extra"' },
    ]);
    renderForm(error);
    expect(errorOf('Interval')).toBe('baselineIntervalMs must be at least 1000 ms');
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
