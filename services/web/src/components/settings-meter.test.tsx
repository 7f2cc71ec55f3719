import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { QuotaMeter } from './settings-meter';

afterEach(cleanup);

describe('QuotaMeter', () => {
  it('is a meter named by its label, with the numbers in text', () => {
    render(<QuotaMeter label="AI tokens used" used={12_345} limit={100_000} unit="tokens" suffix="this month" />);
    const meter = screen.getByRole('meter', { name: 'AI tokens used' });
    expect(meter.getAttribute('value')).toBe('12345');
    expect(meter.getAttribute('max')).toBe('100000');
    expect(meter.getAttribute('aria-valuetext')).toBe('12,345 of 100,000 tokens this month (12 %)');
    expect(screen.getByText('12,345 of 100,000 tokens this month')).toBeTruthy();
  });

  it('marks a quota that is used up', () => {
    const { container } = render(<QuotaMeter label="Jobs" used={10} limit={10} unit="jobs" />);
    expect(container.querySelector('.settings-meter-full')).not.toBeNull();
  });
});
