import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { PlannerPauseNotice } from './settings-ai';

afterEach(cleanup);

describe('PlannerPauseNotice', () => {
  it('says until when and why the planner does not call its model', () => {
    const pausedUntil = new Date(Date.now() + 90_000).toISOString();
    render(
      <PlannerPauseNotice
        planner={{ pausedUntil, pauseReason: '5 model calls failed in a row (last: model overloaded (HTTP 529))' }}
      />,
    );
    const notice = screen.getByRole('status');
    expect(notice.textContent).toMatch(/^The planner has paused its model calls until /);
    expect(notice.textContent).toContain(': 5 model calls failed in a row (last: model overloaded (HTTP 529)).');
    expect(notice.querySelector('time')?.getAttribute('dateTime')).toBe(pausedUntil);
  });

  it('shows nothing while the planner calls its model', () => {
    const { container } = render(<PlannerPauseNotice planner={{ pausedUntil: null, pauseReason: null }} />);
    expect(container.textContent).toBe('');
  });
});
