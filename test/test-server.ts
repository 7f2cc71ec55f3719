/**
 * Test helper (not a test): a real node:http server on a loopback address that records what it
 * receives. A shared fixture (endpoints of every service's tests call it), so it lives in test/,
 * outside every production build; it imports nothing from production code.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body exactly as received, decoded as UTF-8. */
  body: string;
}

export type TestHandler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

export interface TestServer {
  /** `http://<host>:<port>` without a trailing slash. */
  origin: string;
  port: number;
  requests: RecordedRequest[];
  /** TCP connections accepted, to prove a blocked request never connected. */
  connectionCount(): number;
  close(): Promise<void>;
}

export async function startTestServer(handler: TestHandler, host = '127.0.0.1'): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    port,
    requests,
    connectionCount: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on which nothing listens (a server was bound there and closed). */
export async function closedPort(): Promise<number> {
  const server = await startTestServer(() => undefined);
  await server.close();
  return server.port;
}
