/**
 * The got client every baseline calls the target with (ceiling.ts, floor.ts, skeleton.ts and its call
 * thread): keep-alive on `sockets` sockets, no retry, a 4xx or 5xx answered rather than thrown. One
 * client for all, so that they differ from each other only in what surrounds the call.
 */
import http from 'node:http';
import got from 'got';

export const callClient = (sockets: number) =>
  got.extend({
    agent: { http: new http.Agent({ keepAlive: true, maxSockets: sockets }) },
    retry: { limit: 0 },
    throwHttpErrors: false,
  });
