export * from './signature.js';
export * from './secret-box.js';
export * from './standard-webhooks.js';
export * from './recipient-confirmation.js';
export * from './sealed-headers.js';
