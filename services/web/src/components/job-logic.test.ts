import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { archiveQuestion } from './job-actions';
import { splitJobErrors } from './job-create-form';
import { jobPatch } from './job-details';
import type { Job } from './job-queries';

const job: Job = {
  id: 'job_1',
  key: null,
  name: 'Nightly exports',
  description: 'Exports orders',
  status: 'active',
  endpointCount: 2,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  pausedAt: null,
  archivedAt: null,
};

describe('jobPatch: only changed fields', () => {
  it.each<[string, string, string, object]>([
    ['nothing changed', 'Nightly exports', 'Exports orders', {}],
    ['name only', 'Daily exports', 'Exports orders', { name: 'Daily exports' }],
    ['name with only spaces around is unchanged', ' Nightly exports ', 'Exports orders', {}],
    ['description emptied clears it', 'Nightly exports', '  ', { description: null }],
    ['description', 'Nightly exports', 'Exports orders and invoices', { description: 'Exports orders and invoices' }],
  ])('%s', (_, name, description, patch) => expect(jobPatch(job, name, description)).toEqual(patch));
});

describe('splitJobErrors', () => {
  it.each<[string, unknown, ReturnType<typeof splitJobErrors>]>([
    ['no error', null, { fields: {}, form: null }],
    [
      'field issue at its field',
      new ApiError(400, 'VALIDATION_ERROR', 'name: must not be empty', [
        { field: 'name', message: 'must not be empty' },
      ]),
      { fields: { name: 'must not be empty' }, form: null },
    ],
    [
      'issue on a field the form does not show goes on top',
      new ApiError(400, 'VALIDATION_ERROR', 'extra: unknown field', [{ field: 'extra', message: 'unknown field' }]),
      { fields: {}, form: 'extra: unknown field' },
    ],
    [
      'error without issues goes on top',
      new ApiError(403, 'QUOTA_EXCEEDED', 'maxJobs reached'),
      { fields: {}, form: 'maxJobs reached' },
    ],
    ['network error', new Error('offline'), { fields: {}, form: 'offline' }],
  ])('%s', (_, error, expected) => expect(splitJobErrors(error)).toEqual(expected));
});

describe('archiveQuestion', () => {
  it('names the job, the endpoints and that archiving is final', () => {
    const text = archiveQuestion({ name: 'Nightly exports', endpointCount: 1 });
    expect(text).toContain('"Nightly exports"');
    expect(text).toContain('its 1 endpoint stop for good');
    expect(text).toContain('Archiving is final');
  });
});
