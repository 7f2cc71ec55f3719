/**
 * got's raw ceiling: as many GETs as got sends in CEILING_MS against the same target, 100
 * at once (the executor's default concurrency) over keep-alive, in a process of its own. Prints, as
 * JSON, the requests per second of the measured window, every request sent (warm-up too: the target's
 * CPU is read around the whole run) and got's own CPU ms per request in the window.
 */
import { callClient } from './call-client.js';

const target = process.env.CEILING_TARGET!;
const durationMs = Number(process.env.CEILING_MS ?? 5000);
const parallel = Number(process.env.CEILING_CONCURRENCY ?? 100);
const client = callClient(parallel);
// One second of warm-up (sockets, JIT), then the measured window.
let sent = 0;
for (const [ms, counted] of [
  [1000, false],
  [durationMs, true],
] as const) {
  const deadline = Date.now() + ms;
  const cpuBefore = process.cpuUsage();
  let done = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (Date.now() < deadline) {
        await client.get(target, { headers: { 'x-service-run-id': 'ceiling' } });
        done += 1;
      }
    }),
  );
  sent += done;
  if (counted) {
    const cpu = process.cpuUsage(cpuBefore);
    const gotCpuMsPerRequest = (cpu.user + cpu.system) / 1000 / done;
    process.stdout.write(`${JSON.stringify({ rate: done / (ms / 1000), sent, gotCpuMsPerRequest })}\n`);
  }
}
// Its sockets closed, the process ends.
const { http: agent } = client.defaults.options.agent;
if (agent) agent.destroy();
