/**
 * Test helper (not a test): an OTLP/HTTP receiver speaking the JSON encoding
 * (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) on 127.0.0.1. It keeps every span it is sent, flattened
 * with its service name and instrumentation scope.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  service: string;
  scope: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
}

export interface OtlpReceiver {
  /** The value for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Every request received, on any path (a receiver that must stay silent checks this). */
  requestCount(): number;
  close(): Promise<void>;
}

interface JsonAttribute {
  key: string;
  value: Record<string, unknown>;
}

/** OTLP/JSON ids are hex; an encoder that sent base64 is normalised to hex too. */
const hexId = (id: unknown): string => {
  const text = typeof id === 'string' ? id : '';
  return /^[0-9a-f]*$/i.test(text) ? text.toLowerCase() : Buffer.from(text, 'base64').toString('hex');
};

const attributesOf = (attributes: JsonAttribute[] | undefined): Record<string, unknown> =>
  Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, Object.values(value)[0]]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: {
            resource?: { attributes?: JsonAttribute[] };
            scopeSpans?: { scope?: { name?: string }; spans?: Record<string, unknown>[] }[];
          }[];
        };
        for (const resourceSpans of body.resourceSpans ?? []) {
          const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
          for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
            for (const span of scopeSpans.spans ?? []) {
              spans.push({
                service,
                scope: scopeSpans.scope?.name ?? '',
                name: String(span.name),
                traceId: hexId(span.traceId),
                spanId: hexId(span.spanId),
                parentSpanId: hexId(span.parentSpanId ?? ''),
                kind: Number(span.kind),
                attributes: attributesOf(span.attributes as JsonAttribute[] | undefined),
                links: ((span.links as { traceId: string; spanId: string }[] | undefined) ?? []).map((link) => ({
                  traceId: hexId(link.traceId),
                  spanId: hexId(link.spanId),
                })),
              });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    requestCount: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
