import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ChartLegend, ChartPanel } from './dashboard-chart-panel';

afterEach(cleanup);

describe('ChartPanel', () => {
  it('is an image named by its heading and described by its summary', () => {
    render(
      <ChartPanel title="Runs over time" summary="12 runs: 10 succeeded, 2 failed.">
        <svg />
      </ChartPanel>,
    );
    const chart = screen.getByRole('img', { name: 'Runs over time' });
    const summary = document.getElementById(chart.getAttribute('aria-describedby')!);
    expect(summary?.textContent).toBe('12 runs: 10 succeeded, 2 failed.');
    expect(screen.getByRole('heading', { level: 2, name: 'Runs over time' })).toBeTruthy();
  });

  it('shows only the summary when there is nothing to draw', () => {
    render(
      <ChartPanel title="Lateness" summary="No scheduled runs." isEmpty legend={<ChartLegend items={[]} />}>
        <svg />
      </ChartPanel>,
    );
    expect(screen.queryByRole('img')).toBeNull();
    expect(screen.queryByRole('list')).toBeNull();
    expect(screen.getByText('No scheduled runs.')).toBeTruthy();
  });
});

describe('ChartLegend', () => {
  it('lists each series with its figure', () => {
    render(<ChartLegend items={[{ key: 'a', label: 'Succeeded', value: '853', color: '#1a7f37' }]} />);
    expect(screen.getByRole('listitem').textContent).toBe('Succeeded 853');
  });
});
