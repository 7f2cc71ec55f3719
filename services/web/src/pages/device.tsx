/**
 * The device flow's verification page (RFC 8628 verification_uri, /device?user_code=BCDF-GHJK).
 * The person is signed in (App shows the sign-in page first and comes back to this URL); they check
 * the code their device shows and approve or deny it. The api answers 404 for unknown, expired and
 * already decided codes alike; a code decided on this page is recognised as "already used".
 */
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, ApiError, unwrap, type Schemas } from '../api/client';
import { DeviceOutcome } from '../components/device-outcome';
import { formatUserCode, normalizeUserCode } from '../components/device-code';
import { ActionButton } from '../components/action-button';
import { Field } from '../components/field';
import { useErrorFocus } from '../components/form-errors';
import { PageHeading, usePageTitle } from '../components/page-title';
import { useSession } from '../lib/session';

type Decision = 'approve' | 'deny';
type Result = Schemas['DeviceDecisionResult'];

const CODE_SHAPE = 'Enter the 8-letter code your device shows, like BCDF-GHJK.';

export function DevicePage() {
  const [params, setParams] = useSearchParams();
  const [code, setCode] = useState(() => formatUserCode(params.get('user_code') ?? ''));
  const [shapeError, setShapeError] = useState<{ message: string } | null>(null);
  const [result, setResult] = useState<Result | null>(null);
  const [decided, setDecided] = useState<string[]>([]);
  const decide = useMutation({
    mutationFn: ({ decision, userCode }: { decision: Decision; userCode: string }) =>
      unwrap(
        decision === 'approve'
          ? api.POST('/api/auth/device/approve', { body: { user_code: userCode } })
          : api.POST('/api/auth/device/deny', { body: { user_code: userCode } }),
      ),
    onSuccess: (answer, { userCode }) => {
      setDecided((codes) => [...codes, userCode]);
      setResult(answer);
      if (params.has('user_code')) setParams({}, { replace: true }); // a reload must not offer the used code
    },
  });

  const errorFocus = useErrorFocus(shapeError ?? decide.error);
  usePageTitle(result ? (result.status === 'approved' ? 'Device approved' : 'Device denied') : 'Connect a device');

  const submit = (decision: Decision) => {
    const userCode = normalizeUserCode(code);
    setShapeError(userCode ? null : { message: CODE_SHAPE });
    if (userCode) decide.mutate({ decision, userCode });
    else decide.reset();
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit('approve');
  };
  const again = () => {
    setResult(null);
    setCode('');
    decide.reset();
  };

  if (result) return <DeviceOutcome result={result} onAnother={again} />;
  const codeError = shapeError?.message ?? decisionError(decide.error, decide.variables?.userCode, decided);
  return (
    <div className="device-page">
      <PageHeading>Connect a device</PageHeading>
      <DeviceIntro />
      <form ref={errorFocus} onSubmit={onSubmit} noValidate>
        <Field label="Device code" error={codeError} hint="Case and dashes do not matter.">
          <input
            value={code}
            onChange={(event) => setCode(event.target.value)}
            onBlur={() => setCode((typed) => formatUserCode(typed))}
            placeholder="XXXX-XXXX"
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            className="device-code-input"
            required
          />
        </Field>
        <div className="actions">
          <ActionButton type="submit" className="primary" busy={decide.isPending}>
            {decide.isPending && decide.variables.decision === 'approve' ? 'Approving…' : 'Approve'}
          </ActionButton>
          <ActionButton className="danger" busy={decide.isPending} onClick={() => submit('deny')}>
            {decide.isPending && decide.variables.decision === 'deny' ? 'Denying…' : 'Deny'}
          </ActionButton>
        </div>
      </form>
    </div>
  );
}

function DeviceIntro() {
  const session = useSession();
  const user = session.data?.user;
  return (
    <>
      <p>
        A program such as the kairos CLI or the MCP server asks to use your Kairos account. Check that the code below is
        the one it shows, then approve it.
      </p>
      <p className="muted">
        {user ? <>Signed in as {user.email}. </> : null}
        Approve only a code you asked for yourself: the device will act as you until you revoke it in{' '}
        <Link to="/settings#connected-devices">Settings › Connected devices</Link>.
      </p>
    </>
  );
}

/** The message beside the code field for a failed decision. */
function decisionError(error: Error | null, userCode: string | undefined, decided: string[]): string | undefined {
  if (!error) return undefined;
  if (!(error instanceof ApiError)) return error.message;
  if (error.status === 404 && userCode && decided.includes(userCode)) {
    return 'This code was already used: you decided on it a moment ago. Start again on your device for a new code.';
  }
  if (error.status === 404) {
    // The api's words ("no pending device request with this code (it may have expired or been used)").
    const said = error.message.charAt(0).toUpperCase() + error.message.slice(1);
    return `${said}. Check the code (it lasts 10 minutes), or start again on your device for a new one.`;
  }
  return error.fieldErrors().user_code ?? error.message;
}
