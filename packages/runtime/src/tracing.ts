/**
 * OpenTelemetry tracing for every service (docs/operations/observability.md "Tracing"), configured only by the standard
 * `OTEL_*` variables, which the SDK reads itself (OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_ENDPOINT,
 * OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_TRACES_SAMPLER, OTEL_RESOURCE_ATTRIBUTES …).
 *
 * Off unless an OTLP endpoint is set: then nothing of the SDK is even loaded (dynamic imports), the
 * global tracer stays the API's no-op, spans cost a no-op object and no job or request carries a
 * trace context. On: traces only (metrics stay on /metrics, logs on stdout), with the official
 * instrumentations of http (server and client), express, pg and ioredis (`requireParentSpan`: a
 * BullMQ worker's idle polling and the sweeps' bare queries open no trace of their own).
 *
 * Under ESM, express and ioredis are patched by an import hook (import-in-the-middle) that must see
 * them load, so each service's main.ts starts tracing first and imports the service afterwards
 * (measured here on Node 24: with the hook registered after the modules loaded, pg and http spans
 * still appear — they are patched through require and the built-in's shared object — but not
 * express or ioredis ones).
 */
import { register } from 'node:module';
import { z } from 'zod';

/** The settings Kairos itself looks at (the SDK reads the rest); each service's config.ts reads them. */
export const tracingConfigShape = {
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .optional()
    .describe(
      'OpenTelemetry collector (OTLP) that receives traces, e.g. `http://otel-collector:4318`; unset: tracing is off and nothing of the SDK is loaded. The SDK reads the other standard `OTEL_*` variables itself (docs/operations/observability.md).',
    ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .string()
    .optional()
    .describe('The full traces URL instead of OTEL_EXPORTER_OTLP_ENDPOINT (also turns tracing on).'),
  OTEL_SDK_DISABLED: z.string().optional().describe('`true` turns tracing off with an endpoint set.'),
  OTEL_TRACES_EXPORTER: z.string().optional().describe('`none` turns tracing off with an endpoint set.'),
};
export const tracingConfigSchema = z.object(tracingConfigShape);
export type TracingConfig = z.output<typeof tracingConfigSchema>;

/** Tracing is on when an OTLP endpoint is set and the SDK is neither disabled nor told to export nowhere. */
export function isTracingEnabled(config: TracingConfig): boolean {
  const endpoint = config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || config.OTEL_EXPORTER_OTLP_ENDPOINT;
  return Boolean(endpoint) && !/^true$/i.test(config.OTEL_SDK_DISABLED ?? '') && config.OTEL_TRACES_EXPORTER !== 'none';
}

/** Paths probed every few seconds (kubelet, Prometheus): a trace each would drown the real ones. */
export const UNTRACED_PATHS = /^\/(healthz|readyz|metrics)(\?|$)/;

let shutdown: (() => Promise<void>) | undefined;

/**
 * Starts the SDK for `service` (service.name `kairos-<service>` unless OTEL_SERVICE_NAME says
 * otherwise). Call it before importing the modules to instrument; a no-op when tracing is off.
 */
export async function startTracing(service: string, config: TracingConfig): Promise<void> {
  if (shutdown || !isTracingEnabled(config)) return;
  // Only the two modules the hook must wrap: every other import stays as it is (no wrapper cost).
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: ['express', 'ioredis'] } });
  const [
    { NodeSDK },
    { resourceFromAttributes },
    { HttpInstrumentation },
    { ExpressInstrumentation },
    { IORedisInstrumentation },
    { PgInstrumentation },
  ] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/instrumentation-pg'),
  ]);
  const sdk = new NodeSDK({
    // A default under the environment's detectors, so OTEL_SERVICE_NAME still wins.
    resource: resourceFromAttributes({ 'service.name': `kairos-${service}` }),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.test(request.url ?? ''),
      }),
      new ExpressInstrumentation(),
      new IORedisInstrumentation({ requireParentSpan: true }),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  shutdown = () => sdk.shutdown();
}

/** Exports the spans still buffered (the batch processor sends every 5 s); call before exiting. */
export async function stopTracing(): Promise<void> {
  const stop = shutdown;
  shutdown = undefined;
  await stop?.().catch(() => undefined);
}
