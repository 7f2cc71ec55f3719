/** The device page after a decision: approved ("You can return to your device.") or denied. */
import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import type { Schemas } from '../api/client';

export function DeviceOutcome({
  result,
  onAnother,
}: {
  result: Schemas['DeviceDecisionResult'];
  onAnother: () => void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  // The form was replaced: move focus to the outcome so screen readers announce it.
  useEffect(() => heading.current?.focus(), []);
  const device = result.clientName ?? 'The device';
  const approved = result.status === 'approved';
  return (
    <div className="device-page">
      <h1 ref={heading} tabIndex={-1}>
        {approved ? 'Device approved' : 'Device denied'}
      </h1>
      {approved ? (
        <p>
          {device} (code <code>{result.userCode}</code>) can now use your Kairos account.{' '}
          <strong>You can return to your device.</strong>
        </p>
      ) : (
        <p>
          {device} (code <code>{result.userCode}</code>) was denied and gets no access. You can close this page.
        </p>
      )}
      <div className="actions">
        <button type="button" onClick={onAnother}>
          Enter another code
        </button>
        {approved ? <Link to="/settings#connected-devices">See connected devices</Link> : null}
      </div>
    </div>
  );
}
