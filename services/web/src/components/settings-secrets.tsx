/**
 * Settings > Shared secrets: values endpoints reference as {{secrets.NAME}}, listed by name only
 * (the API never answers a value). Create one, set a new value, delete one.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError, unwrap, type Schemas } from '../api/client';
import { ActionButton } from './action-button';
import { Field, FormError } from './field';
import { useErrorFocus } from './form-errors';
import { focusSection, When } from './settings-section';
import { Empty, QueryView } from './states';

type Secret = Schemas['Secret'];
const SECRETS = ['secrets'] as const;

export function SecretsSettings() {
  const secrets = useQuery({ queryKey: SECRETS, queryFn: () => unwrap(api.GET('/api/secrets')) });
  return (
    <>
      <p className="muted">
        A value several endpoints send, stored once and encrypted. Write <code>{'{{secrets.NAME}}'}</code> in an
        endpoint&apos;s URL, headers or body: the value is put in when the request is sent, and never shown again.
      </p>
      <CreateSecretForm />
      <QueryView query={secrets} what="Loading shared secrets">
        {(list) =>
          list.length === 0 ? (
            <Empty title="No shared secrets yet.">
              <p>Create one above, then reference it from your endpoints.</p>
            </Empty>
          ) : (
            <SecretTable secrets={list} />
          )
        }
      </QueryView>
    </>
  );
}

function CreateSecretForm() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/secrets', { body: { name: name.trim(), value } })),
    onSuccess: () => {
      setName('');
      setValue('');
      void queryClient.invalidateQueries({ queryKey: SECRETS });
    },
  });
  const errorFocus = useErrorFocus(create.error);
  const error = create.error instanceof ApiError ? create.error : null;
  const fieldErrors = error?.fieldErrors() ?? {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form ref={errorFocus} onSubmit={submit} noValidate>
      <Field label="Secret name" error={fieldErrors.name} hint="Letters, digits and _, e.g. BILLING_TOKEN.">
        <input value={name} onChange={(event) => setName(event.target.value)} maxLength={64} autoComplete="off" />
      </Field>
      <Field label="Secret value" error={fieldErrors.value}>
        <input
          type="password"
          value={value}
          onChange={(event) => setValue(event.target.value)}
          autoComplete="new-password"
        />
      </Field>
      <div className="actions">
        <ActionButton type="submit" className="primary" busy={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create secret'}
        </ActionButton>
      </div>
      <FormError message={create.error && !fieldErrors.name && !fieldErrors.value ? create.error.message : null} />
    </form>
  );
}

function SecretTable({ secrets }: { secrets: Secret[] }) {
  return (
    <table>
      <caption>Shared secrets</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Reference</th>
          <th scope="col">Changed</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {secrets.map((secret) => (
          <tr key={secret.name}>
            <th scope="row">{secret.name}</th>
            <td>
              <code>{secret.reference}</code>
            </td>
            <td>
              <When iso={secret.updatedAt} />
            </td>
            <td>
              <SecretActions secret={secret} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function SecretActions({ secret }: { secret: Secret }) {
  const queryClient = useQueryClient();
  const path = { params: { path: { name: secret.name } } };
  const change = useMutation({
    mutationFn: (value: string) => unwrap(api.PUT('/api/secrets/{name}', { ...path, body: { value } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SECRETS }),
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/secrets/{name}', path)),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: SECRETS });
      focusSection('secrets');
    },
  });
  const failure = change.error ?? remove.error;
  return (
    <>
      <ActionButton
        busy={change.isPending}
        aria-label={`Change value of ${secret.name}`}
        onClick={() => {
          const value = window.prompt(`New value of ${secret.name} (endpoints send it from their next run)`);
          if (value) change.mutate(value);
        }}
      >
        Change value
      </ActionButton>{' '}
      <ActionButton
        className="danger"
        busy={remove.isPending}
        aria-label={`Delete ${secret.name}`}
        onClick={() => {
          if (window.confirm(`Delete the secret ${secret.name}? Endpoints that use it fail until it exists again.`)) {
            remove.mutate();
          }
        }}
      >
        Delete
      </ActionButton>
      {failure ? (
        <span className="form-error settings-row-error" role="alert">
          {failure.message}
        </span>
      ) : null}
    </>
  );
}
