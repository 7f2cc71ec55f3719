/**
 * The fault suite's target: an HTTP server in its own process (forked with an IPC channel) on
 * 127.0.0.1. Endpoint i calls GET /e/<i>?s=<scheduledAt>; every request's arrival time, run id
 * (X-Service-Run-Id) and planned time are recorded before anything else, so a request counts as
 * delivered even when its answer is a fault. The parent sets a mode per endpoint and asks for the
 * arrivals over IPC:
 *   { type: 'mode', indexes: [..], mode }  → { type: 'mode-set' }
 *   { type: 'arrivals', from }              → { type: 'arrivals', arrivals: [...] } (from index `from`)
 */
import http from 'node:http';

const modes = new Map();
const arrivals = [];
const hanging = new Set();

/** What each poison mode answers; `ok` is the normal answer. */
const ANSWERS = {
  ok: (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  },
  // Never answers: the executor's timeout (the endpoint's timeoutMs) must end the run.
  hang: (res) => hanging.add(res),
  // Promises 1,000 bytes, sends 100, then resets the connection.
  reset: (res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write(`{"partial":"${'x'.repeat(86)}`);
    setTimeout(() => res.socket?.resetAndDestroy?.() ?? res.destroy(), 20);
  },
  // A JSON string holding NUL: valid JSON that PostgreSQL's jsonb and text refuse.
  nul: (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"note":"a\\u0000b"}');
  },
  // Bytes that are not UTF-8 (0xff 0xfe never occur in it).
  'invalid-utf8': (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(Buffer.from([0x61, 0xff, 0xfe, 0x62]));
  },
  // 64 KiB of headers: four times Node's default limit (16 KiB) on the client side.
  'oversized-headers': (res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-big': 'b'.repeat(64 * 1024) });
    res.end('{"ok":true}');
  },
};

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://target');
  const match = /^\/e\/(\d+)$/.exec(url.pathname);
  const index = match ? Number(match[1]) : -1;
  arrivals.push({
    index,
    runId: String(req.headers['x-service-run-id'] ?? ''),
    scheduledAt: url.searchParams.get('s') ?? '',
    atMs: Date.now(),
  });
  req.resume();
  req.on('end', () => (ANSWERS[modes.get(index) ?? 'ok'] ?? ANSWERS.ok)(res));
});
server.keepAliveTimeout = 60_000;
// Node's own limit would refuse the oversized answer before it is written: raise it on this side only.
server.maxHeadersCount = 0;

process.on('message', (message) => {
  if (message.type === 'mode') {
    for (const index of message.indexes) modes.set(index, message.mode);
    if (message.mode !== 'hang') {
      for (const res of hanging) res.destroy();
      hanging.clear();
    }
    process.send({ type: 'mode-set' });
  } else if (message.type === 'arrivals') {
    process.send({ type: 'arrivals', arrivals: arrivals.slice(message.from ?? 0) });
  }
});
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () => process.send({ type: 'listening', port: server.address().port }));
