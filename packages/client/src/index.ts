export * from './client.js';
export * from './errors.js';
export * from './paging.js';
export type { components, operations, paths } from './schema.js';

import type { components } from './schema.js';
/** The API's records and inputs by name: `Schemas['Job']`, `Schemas['Endpoint']`, `Schemas['ConfigPlan']`. */
export type Schemas = components['schemas'];
