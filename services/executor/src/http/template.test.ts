import { buildTemplateValues, renderBodyTemplate, renderTemplate, renderUrlTemplate } from './template.js';
import type { TemplateValues } from './template.js';

const NOW = new Date('2026-11-21T10:00:07.250Z');
const values: TemplateValues = buildTemplateValues(
  {
    runId: 'run_1',
    endpointId: 'end_1',
    scheduledAt: new Date('2026-11-21T10:00:00.000Z'),
    lastRunAt: new Date('2026-11-21T09:00:00.000Z'),
    signingKey: null,
  },
  NOW,
);

describe('buildTemplateValues', () => {
  it('uses ISO 8601 UTC times and the given now', () => {
    expect(values).toEqual({
      lastRunAt: '2026-11-21T09:00:00.000Z',
      scheduledAt: '2026-11-21T10:00:00.000Z',
      runId: 'run_1',
      endpointId: 'end_1',
      now: '2026-11-21T10:00:07.250Z',
    });
  });

  it('gives an empty lastRunAt for a first run', () => {
    const first = buildTemplateValues(
      { runId: 'r', endpointId: 'e', scheduledAt: NOW, lastRunAt: null, signingKey: null },
      NOW,
    );
    expect(first.lastRunAt).toBe('');
  });
});

describe('renderTemplate', () => {
  it.each([
    ['{{lastRunAt}}', '2026-11-21T09:00:00.000Z'],
    ['since={{ lastRunAt }}&run={{runId}}', 'since=2026-11-21T09:00:00.000Z&run=run_1'],
    ['{{endpointId}}/{{scheduledAt}}/{{now}}', 'end_1/2026-11-21T10:00:00.000Z/2026-11-21T10:00:07.250Z'],
    ['{{unknown}} and {{runId}}', '{{unknown}} and run_1'],
    ['{{constructor}} {{toString}}', '{{constructor}} {{toString}}'],
    ['{{ runId', '{{ runId'],
    ['{runId} {{{runId}}}', '{runId} {run_1}'],
    ['no tokens', 'no tokens'],
  ])('%j -> %j', (template, expected) => {
    expect(renderTemplate(template, values)).toBe(expected);
  });
});

describe('renderBodyTemplate', () => {
  it('substitutes string values at any depth of an object, leaving keys and other types alone', () => {
    const body = { '{{runId}}': '{{runId}}', nested: { list: ['{{endpointId}}', 1, true, null] }, n: 5 };
    expect(renderBodyTemplate(body, values)).toEqual({
      '{{runId}}': 'run_1',
      nested: { list: ['end_1', 1, true, null] },
      n: 5,
    });
    expect(body.nested.list[0]).toBe('{{endpointId}}');
  });

  it('substitutes a string body as text and passes null through', () => {
    expect(renderBodyTemplate('{"since":"{{lastRunAt}}"}', values)).toBe('{"since":"2026-11-21T09:00:00.000Z"}');
    expect(renderBodyTemplate(null, values)).toBeNull();
  });
});

describe('renderUrlTemplate', () => {
  it.each([
    [
      'https://api.example.com/jobs?since={{lastRunAt}}',
      'https://api.example.com/jobs?since=2026-11-21T09%3A00%3A00.000Z',
    ],
    [
      'https://api.example.com/{{runId}}/x?run={{runId}}#{{runId}}',
      'https://api.example.com/{{runId}}/x?run=run_1#{{runId}}',
    ],
    ['https://api.example.com/path#frag?x={{runId}}', 'https://api.example.com/path#frag?x={{runId}}'],
    ['https://{{runId}}.example.com/', 'https://{{runId}}.example.com/'],
  ])('%s', (url, expected) => {
    expect(renderUrlTemplate(url, values)).toBe(expected);
  });
});
