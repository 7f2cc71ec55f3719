/**
 * Tracing starts before the executor's modules load: ioredis is instrumented by an import hook that
 * must see it load (packages/runtime/src/tracing.ts). Off without an OTLP endpoint.
 */
import { startTracing } from '@kairos/runtime';
import { loadTracingConfig } from './config.js';

await startTracing('executor', loadTracingConfig());
await import('./service.js');
