/**
 * Settings > Host budgets (opt-in): the account's hostLimits (PATCH /api/account/settings), one row per
 * target host with its calls per second and calls at once. Every endpoint of the account calling the
 * host shares the budget; a run held by it starts late (the run page says how long), never dropped.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError, unwrap, type Schemas } from '../api/client';
import { ActionButton } from './action-button';
import { FormError } from './field';
import { useErrorFocus } from './form-errors';
import { numberIn } from './form-numbers';
import { ACCOUNT_KEY, useAccount } from './settings-account';

type HostLimit = Schemas['HostLimit'];
interface Row {
  host: string;
  perSecond: string;
  atOnce: string;
}

/** The API's bounds (HOST_LIMITS_MAX, HOST_MAX_PER_SECOND, HOST_MAX_CONCURRENT in @kairos/core). */
export const HOST_LIMITS_MAX = 100;
const PER_SECOND = { above: 0, max: 1000 };
const AT_ONCE = { min: 1, max: 10_000, whole: true };
export const ROW_WORDS =
  'Each row needs a lowercase host name (optionally with :port) and calls per second (above 0, up to 1,000) ' +
  'and/or calls at once (a whole number from 1 to 10,000).';

const toRow = (limit: HostLimit): Row => ({
  host: limit.host,
  perSecond: limit.maxPerSecond === undefined ? '' : String(limit.maxPerSecond),
  atOnce: limit.maxConcurrent === undefined ? '' : String(limit.maxConcurrent),
});

/** A row as the API takes it, or null when it is not one (checked before sending). */
export function rowLimit(row: Row): HostLimit | null {
  const host = row.host.trim();
  if (host === '' || host !== host.toLowerCase() || [...host].some((c) => c === '/' || c.trim() === '')) return null;
  const perSecond = row.perSecond.trim() === '' ? undefined : numberIn(row.perSecond, PER_SECOND);
  const atOnce = row.atOnce.trim() === '' ? undefined : numberIn(row.atOnce, AT_ONCE);
  if (perSecond === null || atOnce === null || (perSecond === undefined && atOnce === undefined)) return null;
  return {
    host,
    ...(perSecond === undefined ? {} : { maxPerSecond: perSecond }),
    ...(atOnce === undefined ? {} : { maxConcurrent: atOnce }),
  };
}

export function HostBudgetSettings() {
  const queryClient = useQueryClient();
  const account = useAccount();
  const stored = account.data?.settings.hostLimits;
  const [rows, setRows] = useState<Row[] | null>(null);
  const [invalid, setInvalid] = useState<{ rows: number[] } | null>(null);
  const save = useMutation({
    mutationFn: (hostLimits: HostLimit[]) => unwrap(api.PATCH('/api/account/settings', { body: { hostLimits } })),
    onSuccess: (updated) => {
      queryClient.setQueryData(ACCOUNT_KEY, updated);
      setRows(null);
    },
  });
  const shown = rows ?? (stored ?? []).map(toRow);
  const errorFocus = useErrorFocus(invalid ?? save.error);
  const refused = save.error instanceof ApiError ? save.error.fieldErrors() : {};
  const change = (index: number, patch: Partial<Row>) =>
    setRows(shown.map((row, at) => (at === index ? { ...row, ...patch } : row)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const limits = shown.map(rowLimit);
    const bad = limits.flatMap((limit, index) => (limit === null ? [index] : []));
    setInvalid(bad.length > 0 ? { rows: bad } : null);
    if (bad.length > 0) save.reset();
    else save.mutate(limits as HostLimit[]);
  };
  return (
    <form ref={errorFocus} onSubmit={submit} noValidate aria-label="Host budgets">
      <p className="muted">
        One budget per target host, shared by every endpoint of the account that calls it, across executors. A run held
        by it starts late (its page says how long), never dropped; a 429 with Retry-After from the host holds the whole
        host. A host without a port holds for every port. None: calls go as planned.
      </p>
      {shown.length === 0 ? <p>No host budgets.</p> : null}
      {shown.map((row, index) => {
        const bad =
          invalid?.rows.includes(index) ||
          Object.keys(refused).some((field) => field.startsWith(`hostLimits[${index}]`));
        return (
          <fieldset key={index} className={`host-budget${bad ? ' field-invalid' : ''}`}>
            <legend>Host {index + 1}</legend>
            <label>
              Host
              <input
                value={row.host}
                placeholder="api.example.com"
                onChange={(event) => change(index, { host: event.target.value })}
              />
            </label>
            <label>
              Calls per second
              <input
                type="number"
                min={0}
                max={1000}
                step="any"
                value={row.perSecond}
                onChange={(event) => change(index, { perSecond: event.target.value })}
              />
            </label>
            <label>
              Calls at once
              <input
                type="number"
                min={1}
                max={10_000}
                step={1}
                value={row.atOnce}
                onChange={(event) => change(index, { atOnce: event.target.value })}
              />
            </label>
            <button type="button" onClick={() => setRows(shown.filter((_row, at) => at !== index))}>
              Remove host {index + 1}
            </button>
            {bad ? <p className="field-error">{ROW_WORDS}</p> : null}
          </fieldset>
        );
      })}
      <div className="actions">
        <button
          type="button"
          disabled={account.data === undefined || shown.length >= HOST_LIMITS_MAX}
          onClick={() => setRows([...shown, { host: '', perSecond: '', atOnce: '' }])}
        >
          Add a host
        </button>
        <ActionButton type="submit" busy={save.isPending || account.data === undefined}>
          {save.isPending ? 'Saving…' : 'Save host budgets'}
        </ActionButton>
      </div>
      <FormError message={save.error && Object.keys(refused).length === 0 ? save.error.message : null} />
    </form>
  );
}
