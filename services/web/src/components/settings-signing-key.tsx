/**
 * Settings > Signing key: what it is for, its prefix and dates, create (only when the account has
 * none: every account gets one at setup) or rotate, and the rotation grace window
 * (settings-signing-grace.tsx). The raw key is in the create/rotate answer only, and once in the
 * reveal answer for a key never shown (an account created at sign-in: the first visit shows it).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { SecretOnce } from './settings-secret';
import { SigningKeyGraceWindow } from './settings-signing-grace';
import { ActionButton } from './action-button';
import { focusSection, When } from './settings-section';
import { Empty, QueryView } from './states';
import { FormError } from './field';

const SIGNING_KEY = ['signing-key'] as const;

const ROTATE_QUESTION =
  'Rotate the signing key? Without a grace window the old key stops working at once: requests already ' +
  'signed with it fail verification, and your receivers must switch to the new key.';

export function SigningKeySettings() {
  const queryClient = useQueryClient();
  const info = useQuery({ queryKey: SIGNING_KEY, queryFn: () => unwrap(api.GET('/api/signing-keys')) });
  const [issued, setIssued] = useState<{ key: Schemas['IssuedSigningKey']; label: string } | null>(null);
  const onIssued = (label: string) => (key: Schemas['IssuedSigningKey']) => {
    setIssued({ key, label });
    void queryClient.invalidateQueries({ queryKey: SIGNING_KEY });
  };
  // A 409 (a key exists after all) or 404 (no key to rotate) means the shown state is stale: refetch.
  const onSettled = () => void queryClient.invalidateQueries({ queryKey: SIGNING_KEY });
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/signing-keys')),
    onSuccess: onIssued('New signing key'),
    onSettled,
  });
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/api/signing-keys/rotate')),
    onSuccess: onIssued('New signing key'),
    onSettled,
  });
  // A 409 here means another tab or client was shown the key first: nothing to show, no error.
  const reveal = useMutation({
    mutationFn: () => unwrap(api.POST('/api/signing-keys/reveal')),
    onSuccess: onIssued('Your signing key'),
    onSettled,
  });
  // Once per mounted page (a ref, not state: React's development double effect must not ask twice).
  const askedReveal = useRef(false);
  const isUnrevealed = info.data?.hasKey === true && info.data.revealedAt === null;
  useEffect(() => {
    if (!isUnrevealed || askedReveal.current) return;
    askedReveal.current = true;
    reveal.mutate();
  }, [isUnrevealed, reveal]);
  const pending = create.isPending || rotate.isPending;
  const error = create.error ?? rotate.error;
  return (
    <>
      <p>
        Kairos signs every request it sends to your endpoints: the <code>X-Service-Signature</code> header is an
        HMAC-SHA256 of <code>&lt;timestamp&gt;.&lt;body&gt;</code> with this key, so your receivers can verify that a
        request comes from Kairos (details in the <a href="/api/reference">API reference</a>).
      </p>
      {issued ? (
        <SecretOnce
          label={issued.label}
          value={issued.key.rawKey}
          onDone={() => {
            setIssued(null);
            focusSection('signing-key');
          }}
        >
          <p>
            Store it now: Kairos keeps it encrypted and will not show it again (a rotation issues a new one). Give it to
            the services that receive Kairos requests; they verify each signature with it.
          </p>
        </SecretOnce>
      ) : null}
      <QueryView query={info} what="Loading the signing key">
        {(key) =>
          key.hasKey ? (
            <>
              <dl className="facts">
                <dt>Key</dt>
                <dd>
                  <code>{key.keyPrefix}…</code>
                </dd>
                <dt>Created</dt>
                <dd>
                  <When iso={key.createdAt} />
                </dd>
                <dt>Last rotated</dt>
                <dd>
                  <When iso={key.rotatedAt} empty="Never" />
                </dd>
              </dl>
              <div className="actions">
                <ActionButton
                  className="danger"
                  busy={pending}
                  onClick={() => {
                    if (window.confirm(ROTATE_QUESTION)) rotate.mutate();
                  }}
                >
                  {rotate.isPending ? 'Rotating…' : 'Rotate signing key'}
                </ActionButton>
              </div>
              <SigningKeyGraceWindow info={key} signingKeyQuery={SIGNING_KEY} />
            </>
          ) : (
            <Empty title="This account has no signing key.">
              <p>Requests to your endpoints are sent without signature headers until you create one.</p>
              <ActionButton className="primary" busy={pending} onClick={() => create.mutate()}>
                {create.isPending ? 'Creating…' : 'Create signing key'}
              </ActionButton>
            </Empty>
          )
        }
      </QueryView>
      <FormError message={error?.message} />
    </>
  );
}
