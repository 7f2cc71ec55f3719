import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FormError } from './field';

afterEach(cleanup);

describe('FormError', () => {
  it('announces the message as an alert', () => {
    render(<FormError message="CONFLICT: the channel exists" />);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe('CONFLICT: the channel exists');
    expect(alert.className).toBe('form-error');
  });

  it.each([null, undefined, ''])('renders nothing for %j', (message) => {
    const { container } = render(<FormError message={message} />);
    expect(container.innerHTML).toBe('');
  });
});
