import {
  buildTemplateValues,
  needsRendering,
  renderBodyTemplate,
  renderTemplate,
  renderUrlTemplate,
} from './template.js';
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

describe('needsRendering', () => {
  class Payload {
    constructor(readonly a = 'x') {}
  }
  const nullPrototype = Object.assign(Object.create(null) as Record<string, unknown>, { a: 'x' });
  const ownToJson = { a: 'x', toJSON: () => 'replaced' };
  const arrayToJson = Object.assign(['x'], { toJSON: () => 'replaced' });
  const sparse = ['x', , 'y']; // eslint-disable-line no-sparse-arrays
  const boxed = new String('x');

  it.each([
    ['a string without a token', 'no tokens', false],
    ['a string with a token', 'a={{runId}}', true],
    ['a string with braces that are no token', '{{ runId', true],
    ['single braces', '{runId}', false],
    ['null', null, false],
    ['a plain body without a token', { a: 'x', n: 1, b: true, z: null, list: ['y', 2, { deep: 'z' }] }, false],
    ['a token deep in a body', { list: [1, { deep: 'v={{now}}' }] }, true],
    ['a token only in a key (keys are never rendered)', { '{{runId}}': 'x' }, false],
    ['undefined and function values', { u: undefined, f: () => 1 }, false],
    ['a sparse array', { sparse }, false],
    ['a Date', { at: new Date(0) }, true],
    ['an object with toJSON', { nested: ownToJson }, true],
    ['an array with toJSON', { list: arrayToJson }, true],
    ['a class instance', { payload: new Payload() }, true],
    ['a null-prototype object', { nested: nullPrototype }, true],
    ['a boxed string', { boxed }, true],
  ])('%s', (_name, value, expected) => {
    expect(needsRendering(value)).toBe(expected);
  });

  // What lets prepareRequest skip the values and the rendering: the same bytes on the wire.
  it('is false only for values that render and serialise to themselves', () => {
    const bodies: unknown[] = [
      'no tokens',
      '{"a":"{single}"}',
      { a: 'x', n: 1.5, b: false, z: null, u: undefined, f: () => 1, list: ['y', 2, [], {}, { deep: 'z' }] },
      { '{{runId}}': 'key only', '': 'empty key' },
      { sparse },
      [1, 'a', null],
      { nan: Number.NaN, inf: Number.POSITIVE_INFINITY, neg: -0 },
    ];
    for (const body of bodies) {
      expect(needsRendering(body)).toBe(false);
      const rendered = renderBodyTemplate(body as Record<string, unknown>, values);
      expect(JSON.stringify(rendered)).toBe(JSON.stringify(body));
    }
    const url = 'https://api.example.com/jobs/{id}?since=x&run={run}#frag';
    expect(needsRendering(url)).toBe(false);
    expect(renderUrlTemplate(url, values)).toBe(url);
  });

  it('is true for objects that rendering would serialise differently, even without a token', () => {
    // (Others answer true only to be safe: rendering a class instance copies it to the same JSON.)
    for (const body of [{ at: new Date(0) }, { boxed }]) {
      expect(needsRendering(body)).toBe(true);
      expect(JSON.stringify(renderBodyTemplate(body, values))).not.toBe(JSON.stringify(body));
    }
  });
});
