/**
 * The skeleton executor's calls in a worker thread of their own (SKELETON_CALL_THREAD=1 in
 * bench/skeleton.ts): the measured answer to "a second executor thread would close the gap".
 * The same got client as the skeleton executor's own (call-client.ts), on the thread: the main
 * thread posts each call (URL, method, headers) and gets back its status and body.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { callClient } from './call-client.js';

/** A call, as the skeleton executor posts it. */
export interface ThreadCall {
  id: number;
  url: string;
  method: string;
  headers: Record<string, string>;
}
/** What the skeleton reads of a response. */
export interface ThreadResponse {
  statusCode: number;
  body: string;
}
/** Its answer: the response, or why the call failed. */
export type ThreadAnswer = ({ id: number } & ThreadResponse) | { id: number; error: string };

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
