export * from './document.js';
export * from './export.js';
export { DOCUMENT_ENDPOINT_FIELDS } from './fields.js';
export * from './keys.js';
export * from './plan.js';
