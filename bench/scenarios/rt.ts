/**
 * BENCH_ONLY=rt: round trips per delivered execution at 500 due/s and the defaults, AI scheduling off and
 * on (no model): Redis commands (INFO commandstats of the benchmark's own redis-server, those run inside
 * scripts included), PostgreSQL statements and round trips (the services connect through a counting
 * relay, lib.ts startPgCounter) and transactions, and the endpoint row updates PostgreSQL made HOT.
 */
import { single, type Bench } from '../environment.js';
import { kairosScenario } from '../kairos-window.js';
import { pct, report } from '../report.js';

export async function run({ target, redis }: Bench): Promise<void> {
  report('## Round trips per delivered execution (defaults, 500 due/s; PostgreSQL through a counting relay)');
  report('');
  report(
    '| AI scheduling | Redis commands (in scripts too) | of which scripts | PG statements | PG round trips | PG transactions |',
  );
  report('|---|---|---|---|---|---|');
  const byCommand: string[] = [];
  for (const ai of [false, true]) {
    const figures = await kairosScenario(`rt_${ai ? 'on' : 'off'}`, 500, target, single(redis), {
      ai,
      countPg: true,
    });
    report(
      `| ${ai ? 'on, no model' : 'off'} | ${figures.redisCommands.toFixed(1)} | ${figures.redisScripts.toFixed(2)} | ${figures.pgStatements!.toFixed(2)} | ${figures.pgRoundTrips!.toFixed(2)} | ${figures.pgTransactions.toFixed(2)} |`,
    );
    const top = Object.entries(figures.redisByCommand)
      .filter(([, perExecution]) => perExecution >= 0.05)
      .sort((a, b) => b[1] - a[1]);
    byCommand.push(
      `AI ${ai ? 'on' : 'off'}: ${top.map(([name, n]) => `${name} ${n.toFixed(2)}`).join(', ')}; ` +
        `endpoint row updates per execution ${figures.endpointUpdates.perExecution.toFixed(2)}, ${pct(figures.endpointUpdates.hot)} of them HOT`,
    );
  }
  report('');
  report('Redis commands per execution by name (≥ 0.05):');
  report('');
  for (const line of byCommand) report(`- ${line}`);
  report('');
}
