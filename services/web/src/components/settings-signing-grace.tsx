/**
 * Settings > Signing key > Rotation grace window (opt-in): how many minutes the previous
 * key keeps signing beside the new one after a rotation (PATCH /api/account/settings,
 * signingKeyGraceMinutes; 0 = the old key is invalid at once), and, while a window runs, when it ends
 * and a button that ends it now (POST /api/signing-keys/revoke-previous).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError, unwrap, type Schemas } from '../api/client';
import { formatDateTime } from '../lib/time';
import { Field, FormError } from './field';
import { ACCOUNT_KEY, useAccount } from './settings-account';
import { ActionButton } from './action-button';
import { useErrorFocus } from './form-errors';
import { numberIn } from './form-numbers';
import { focusSection, When } from './settings-section';

/** The API's bound (SIGNING_KEY_GRACE_MAX_MINUTES in @kairos/core): 7 days. */
export const GRACE_MAX_MINUTES = 10_080;
/** What the field takes, in its own words: said for a bad entry and for any refusal of the API. */
export const GRACE_WORDS = 'Enter a whole number of minutes from 0 to 10,080 minutes (7 days).';

const REVOKE_QUESTION =
  'Revoke the previous signing key now? Requests are signed with the current key only from now on: ' +
  'receivers still holding the previous key fail verification.';

export function SigningKeyGraceWindow({
  info,
  signingKeyQuery,
}: {
  info: Schemas['SigningKeyInfo'];
  signingKeyQuery: readonly unknown[];
}) {
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => unwrap(api.POST('/api/signing-keys/revoke-previous')),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: signingKeyQuery }),
    // The button goes with the window it ends.
    onSuccess: () => focusSection('signing-key'),
  });
  return (
    <>
      <h3>Rotation grace window</h3>
      <GraceMinutesForm />
      {info.previousKeyPrefix && info.previousExpiresAt ? (
        <>
          <p>
            The previous key <code>{info.previousKeyPrefix}…</code> still signs beside the current one until{' '}
            <time dateTime={info.previousExpiresAt}>{formatDateTime(info.previousExpiresAt)}</time> (
            <When iso={info.previousExpiresAt} />
            ).
          </p>
          <div className="actions">
            <ActionButton
              className="danger"
              busy={revoke.isPending}
              onClick={() => {
                if (window.confirm(REVOKE_QUESTION)) revoke.mutate();
              }}
            >
              {revoke.isPending ? 'Revoking…' : 'Revoke previous key now'}
            </ActionButton>
          </div>
        </>
      ) : null}
      <FormError message={revoke.error?.message} />
    </>
  );
}

function GraceMinutesForm() {
  const queryClient = useQueryClient();
  const account = useAccount();
  const [minutes, setMinutes] = useState<string | null>(null);
  const [invalid, setInvalid] = useState<{ entered: string } | null>(null);
  const save = useMutation({
    mutationFn: (signingKeyGraceMinutes: number) =>
      unwrap(api.PATCH('/api/account/settings', { body: { signingKeyGraceMinutes } })),
    onSuccess: (updated) => {
      queryClient.setQueryData(ACCOUNT_KEY, updated);
      setMinutes(null);
    },
  });
  const stored = account.data?.settings.signingKeyGraceMinutes;
  const shown = minutes ?? (stored === undefined ? '' : String(stored));
  const errorFocus = useErrorFocus(invalid ?? save.error);
  const refused = save.error instanceof ApiError && save.error.fieldErrors().signingKeyGraceMinutes !== undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value = numberIn(shown, { min: 0, max: GRACE_MAX_MINUTES, whole: true });
    setInvalid(value === null ? { entered: shown } : null);
    if (value === null) save.reset();
    else save.mutate(value);
  };
  return (
    <form ref={errorFocus} onSubmit={submit} noValidate aria-label="Rotation grace window">
      <Field
        label="Grace window (minutes)"
        error={invalid || refused ? GRACE_WORDS : undefined}
        hint={`After a rotation the previous key keeps signing beside the new one for this long (header "sha256=<new> sha256=<old>"), so receivers can switch without failed requests. 0: the old key is invalid at once. Up to ${GRACE_MAX_MINUTES} (7 days); applies to the next rotation.`}
      >
        <input
          type="number"
          inputMode="numeric"
          min={0}
          max={GRACE_MAX_MINUTES}
          step={1}
          value={shown}
          disabled={account.data === undefined}
          onChange={(event) => setMinutes(event.target.value)}
        />
      </Field>
      <div className="actions">
        <ActionButton type="submit" busy={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save grace window'}
        </ActionButton>
      </div>
      <FormError message={save.error && !refused ? save.error.message : null} />
    </form>
  );
}
