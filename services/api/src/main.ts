/**
 * Tracing starts before the api's modules load: express and ioredis are instrumented by an import
 * hook that must see them load (packages/runtime/src/tracing.ts). Off without an OTLP endpoint.
 */
import { startTracing } from '@kairos/runtime';
import { loadTracingConfig } from './config.js';

await startTracing('api', loadTracingConfig());
const { main } = await import('./server.js');

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
