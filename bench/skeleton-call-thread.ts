/**
 * The skeleton executor's calls in a worker thread of their own (SKELETON_CALL_THREAD=1 in
 * bench/skeleton.ts): the measured answer to "a second executor thread would close the gap" (issue #14).
 * The same got client as the executor's own, on the thread: the main thread posts each call (URL,
 * method, headers) and gets back its status and body.
 */
import http from 'node:http';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import got from 'got';

/** A call, as the skeleton executor posts it. */
export interface ThreadCall {
  id: number;
  url: string;
  method: string;
  headers: Record<string, string>;
}
/** Its answer: the status and body, or why it failed. */
export type ThreadAnswer = { id: number; statusCode: number; body: string } | { id: number; error: string };

/** The skeleton executor's got client, `calls` sockets, on whichever thread calls. */
export const callClient = (calls: number) =>
  got.extend({
    agent: { http: new http.Agent({ keepAlive: true, maxSockets: calls }) },
    retry: { limit: 0 },
    throwHttpErrors: false,
  });

if (!isMainThread) {
  const client = callClient((workerData as { calls: number }).calls);
  const port = parentPort!;
  port.on('message', ({ id, url, method, headers }: ThreadCall) => {
    client(url, { method: method as 'GET', headers }).then(
      (response) =>
        port.postMessage({ id, statusCode: response.statusCode, body: response.body } satisfies ThreadAnswer),
      (error: unknown) => port.postMessage({ id, error: String(error) } satisfies ThreadAnswer),
    );
  });
}
