/**
 * Tracing starts before the planner's modules load: ioredis is instrumented by an import hook that
 * must see it load (packages/runtime/src/tracing.ts). Off without an OTLP endpoint.
 */
import { startTracing } from '@kairos/runtime';
import { loadTracingConfig } from './config.js';

await startTracing('planner', loadTracingConfig());
await import('./service.js');
