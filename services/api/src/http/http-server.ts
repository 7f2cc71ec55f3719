/**
 * The api's HTTP server. Request headers are bounded at LIMITS.requestHeadersMaxBytes (16 KiB); a
 * request over it, or one Node cannot parse, is answered by the server itself, before express, in
 * the API's error shape (Node's own answer is a bare status line that tells the client nothing).
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, LIMITS } from '@kairos/core';

function rawResponse(status: string, error: AppError | null): string {
  const body = error ? JSON.stringify(error.toBody()) : '';
  const type = error ? 'Content-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n' : '';
  return `HTTP/1.1 ${status}\r\n${type}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** What Node would answer a request it could not read, with a body in the API's shape where one helps. */
function clientErrorResponse(code: string | undefined): string {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return rawResponse(
        '431 Request Header Fields Too Large',
        new AppError('HEADERS_TOO_LARGE', `request headers exceed ${LIMITS.requestHeadersMaxBytes} bytes`, {
          limitBytes: LIMITS.requestHeadersMaxBytes,
        }),
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return rawResponse('413 Payload Too Large', null);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return rawResponse('408 Request Timeout', null);
    default:
      return rawResponse('400 Bad Request', new AppError('VALIDATION_ERROR', 'malformed HTTP request'));
  }
}

export function createHttpServer(app: RequestListener): Server {
  const server = createServer({ maxHeaderSize: LIMITS.requestHeadersMaxBytes }, app);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // A reset or half-written connection has no one left to answer.
    if (socket.writable && socket.bytesWritten === 0) socket.write(clientErrorResponse(error.code));
    socket.destroy(error);
  });
  return server;
}
