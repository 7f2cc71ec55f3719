import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Pager } from './job-pager';

afterEach(cleanup);

describe('Pager', () => {
  it('reaches the last of 100,000 endpoints in one step and any page by number', () => {
    const onChange = vi.fn();
    render(<Pager offset={0} limit={100} total={100_000} what="endpoints" onChange={onChange} />);
    expect(screen.getByText('1–100 of 100000 endpoints, page 1 of 1000')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'First page' }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Previous page' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Last page' }));
    expect(onChange).toHaveBeenLastCalledWith(99_900);
    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    expect(onChange).toHaveBeenLastCalledWith(100);
    fireEvent.change(screen.getByLabelText('Page'), { target: { value: '734' } });
    fireEvent.click(screen.getByRole('button', { name: 'Go to page' }));
    expect(onChange).toHaveBeenLastCalledWith(73_300);
  });

  it('disables next and last on the last page and hides when one page holds everything', () => {
    const onChange = vi.fn();
    const { rerender } = render(<Pager offset={99_900} limit={100} total={100_000} what="jobs" onChange={onChange} />);
    expect((screen.getByRole('button', { name: 'Next page' }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Last page' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Previous page' }));
    expect(onChange).toHaveBeenLastCalledWith(99_800);
    rerender(<Pager offset={0} limit={100} total={100} what="jobs" onChange={onChange} />);
    expect(screen.queryByRole('navigation')).toBeNull();
  });
});
