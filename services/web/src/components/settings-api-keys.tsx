/**
 * Settings > API keys: create a named key (shown once), read-only or not, list the keys, revoke one.
 * Revoked keys stay listed by the api (revokedAt set); they are folded away under the live ones.
 * The new key takes focus; "Done" gives it back to Create API key.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { api, ApiError, unwrap, type Schemas } from '../api/client';
import { Field, FormError } from './field';
import { CredentialTable } from './settings-credentials';
import { SecretOnce } from './settings-secret';
import { ActionButton } from './action-button';
import { useErrorFocus } from './form-errors';
import { focusSection, When } from './settings-section';
import { Empty, QueryView } from './states';
import { RevokeButton } from './settings-revoke';

type ApiKey = Schemas['ApiKey'];
const API_KEYS = ['api-keys'] as const;

export function ApiKeysSettings() {
  const keys = useQuery({ queryKey: API_KEYS, queryFn: () => unwrap(api.GET('/api/api-keys')) });
  return (
    <>
      <p className="muted">
        Programs call the Kairos API with a key in the <code>x-api-key</code> header. Give each program its own key so
        you can revoke one without touching the others.
      </p>
      <CreateApiKeyForm />
      <QueryView query={keys} what="Loading API keys">
        {(list) => <ApiKeyList keys={list} />}
      </QueryView>
    </>
  );
}

function CreateApiKeyForm() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'write' | 'read'>('write');
  const [created, setCreated] = useState<Schemas['CreatedApiKey'] | null>(null);
  const [missingName, setMissingName] = useState<{ at: number } | null>(null);
  const createButton = useRef<HTMLButtonElement>(null);
  const create = useMutation({
    mutationFn: (keyName: string) => unwrap(api.POST('/api/api-keys', { body: { name: keyName, scope } })),
    onSuccess: (key) => {
      setCreated(key);
      setName('');
      void queryClient.invalidateQueries({ queryKey: API_KEYS });
    },
  });
  const errorFocus = useErrorFocus(missingName ?? create.error);
  const error = create.error instanceof ApiError ? create.error : null;
  const nameError = missingName ? 'Give the key a name.' : error?.fieldErrors().name;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const isMissing = name.trim() === '';
    setMissingName(isMissing ? { at: Date.now() } : null);
    if (!isMissing) create.mutate(name.trim());
  };
  const done = () => {
    setCreated(null);
    createButton.current?.focus();
  };
  return (
    <>
      {created ? (
        <SecretOnce label="New API key" value={created.apiKey} onDone={done}>
          <p>
            Send it as the <code>x-api-key</code> header. It is listed below as “{created.name}” ({created.prefix}…).
          </p>
        </SecretOnce>
      ) : null}
      <form ref={errorFocus} onSubmit={submit} noValidate>
        <Field label="Key name" error={nameError} hint="What uses the key, e.g. “deploy pipeline”.">
          <input
            value={name}
            onChange={(event) => setName(event.target.value)}
            maxLength={200}
            autoComplete="off"
            required
          />
        </Field>
        <Field
          label="Access"
          hint="Read only: the key reads everything and changes nothing, as a viewer (for reporting or an AI agent)."
        >
          <select value={scope} onChange={(event) => setScope(event.target.value === 'read' ? 'read' : 'write')}>
            <option value="write">Read and write (your role)</option>
            <option value="read">Read only</option>
          </select>
        </Field>
        <div className="actions">
          <ActionButton type="submit" className="primary" busy={create.isPending} ref={createButton}>
            {create.isPending ? 'Creating…' : 'Create API key'}
          </ActionButton>
        </div>
        <FormError message={create.error && !nameError ? create.error.message : null} />
      </form>
    </>
  );
}

function ApiKeyList({ keys }: { keys: ApiKey[] }) {
  const live = keys.filter((key) => !key.revokedAt);
  const revoked = keys.filter((key) => key.revokedAt);
  return (
    <>
      {live.length === 0 ? (
        <Empty title="No API keys yet.">
          <p>Create one above to call the API from a program.</p>
        </Empty>
      ) : (
        <ApiKeyTable keys={live} caption="Active API keys" />
      )}
      {revoked.length > 0 ? (
        <details>
          <summary>Revoked keys ({revoked.length})</summary>
          <ApiKeyTable keys={revoked} caption="Revoked API keys" />
        </details>
      ) : null}
    </>
  );
}

function ApiKeyTable({ keys, caption }: { keys: ApiKey[]; caption: string }) {
  return (
    <CredentialTable
      caption={caption}
      items={keys.map((key) => (key.scope === 'read' ? { ...key, name: `${key.name} (read only)` } : key))}
      createdLabel="Created"
      action={(apiKey) =>
        apiKey.revokedAt ? (
          <span className="badge badge-archived">
            Revoked <When iso={apiKey.revokedAt} />
          </span>
        ) : (
          <RevokeButton
            question={`Revoke the API key “${apiKey.name}”? Programs using it stop working at once. This cannot be undone.`}
            revoke={() => unwrap(api.DELETE('/api/api-keys/{keyId}', { params: { path: { keyId: apiKey.id } } }))}
            invalidates={API_KEYS}
            itemName={apiKey.name}
            afterRevoke={() => focusSection('api-keys')}
          />
        )
      }
    />
  );
}
