export * from './signature.js';
export * from './secret-box.js';
