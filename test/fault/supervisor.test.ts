/**
 * The supervisor of `pnpm start` (scripts/supervisor.mjs): its restart policy as a pure function of
 * crash times, then real child processes — one killed with SIGKILL comes back under a new pid, a
 * crash loop stops the whole with exit 1, a configuration refusal (exit 78) stops it at once.
 */
import { createRestartPolicy, DEFAULT_POLICY, superviseServices } from '../../scripts/supervisor.mjs';
import { isAlive, waitFor } from './processes.js';

const idle = (name: string) => ({ name, command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] });
const exiting = (name: string, code: number) => ({
  name,
  command: process.execPath,
  args: ['-e', `process.exit(${code})`],
});

describe('restart policy', () => {
  it('waits 1 s doubling per crash and gives up at the 5th crash within 2 minutes', () => {
    const policy = createRestartPolicy();
    const decisions = [0, 3_000, 8_000, 20_000, 40_000].map((atMs) => policy.recordCrash(atMs));
    expect(decisions).toEqual([
      { action: 'restart', crashes: 1, delayMs: 1000 },
      { action: 'restart', crashes: 2, delayMs: 2000 },
      { action: 'restart', crashes: 3, delayMs: 4000 },
      { action: 'restart', crashes: 4, delayMs: 8000 },
      { action: 'give-up', crashes: 5, windowMs: 120_000 },
    ]);
    expect(DEFAULT_POLICY).toEqual({ initialDelayMs: 1000, maxDelayMs: 30_000, maxCrashes: 5, windowMs: 120_000 });
  });

  it('forgets crashes older than the window, so a service that ran well restarts after 1 s again', () => {
    const policy = createRestartPolicy();
    // Five crashes, each 2 minutes apart: never more than one in the window.
    for (const atMs of [0, 120_000, 240_000, 360_000, 480_000]) {
      expect(policy.recordCrash(atMs)).toEqual({ action: 'restart', crashes: 1, delayMs: 1000 });
    }
    expect(policy.recordCrash(481_000)).toEqual({ action: 'restart', crashes: 2, delayMs: 2000 });
  });

  it('caps the delay', () => {
    const policy = createRestartPolicy({ maxCrashes: 20, windowMs: 10_000_000 });
    const delays = Array.from({ length: 8 }, (_, i) => policy.recordCrash(i * 1000)).map((d) =>
      d.action === 'restart' ? d.delayMs : -1,
    );
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });
});

describe('supervised processes', () => {
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);
  let stopAll: (() => Promise<number>) | undefined;
  afterEach(async () => {
    await stopAll?.();
    stopAll = undefined;
    lines.length = 0;
  });

  it('restarts a child killed with SIGKILL and leaves the others alone; stop() ends them all', async () => {
    const supervisor = superviseServices({ services: [idle('a'), idle('b')], log, stdio: 'ignore' });
    stopAll = () => supervisor.stop(0);
    const [a, b] = [supervisor.pidOf('a')!, supervisor.pidOf('b')!];
    process.kill(a, 'SIGKILL');
    const restarted = await waitFor(
      'a new pid for a',
      () => {
        const pid = supervisor.pidOf('a');
        return pid !== undefined && pid !== a && pid;
      },
      10_000,
      50,
    );
    expect(isAlive(restarted)).toBe(true);
    expect(supervisor.pidOf('b')).toBe(b);
    expect(lines.join('\n')).toContain('a exited unexpectedly (signal SIGKILL); restarting in 1 s (crash 1)');

    expect(await supervisor.stop(0)).toBe(0);
    expect(isAlive(restarted)).toBe(false);
    expect(isAlive(b)).toBe(false);
  }, 20_000);

  it('stops every service with exit 1 when one keeps crashing', async () => {
    const supervisor = superviseServices({
      services: [idle('steady'), exiting('flaky', 3)],
      log,
      stdio: 'ignore',
      policy: { initialDelayMs: 50 },
    });
    stopAll = () => supervisor.stop(0);
    const steady = supervisor.pidOf('steady')!;
    const startedAtMs = Date.now();
    expect(await supervisor.exited).toBe(1);
    // 50 + 100 + 200 + 400 ms of backoff between five crashes.
    expect(Date.now() - startedAtMs).toBeGreaterThanOrEqual(750);
    expect(isAlive(steady)).toBe(false);
    expect(lines.filter((line) => line.includes('flaky exited unexpectedly (code 3)'))).toHaveLength(4);
    expect(lines.at(-1)).toContain(
      'flaky crashed 5 times in 120 s (last: code 3); giving up and stopping every service',
    );
  }, 20_000);

  it('stops at once when a service refuses its configuration (exit 78)', async () => {
    const supervisor = superviseServices({
      services: [idle('steady'), exiting('misconfigured', 78)],
      log,
      stdio: 'ignore',
    });
    stopAll = () => supervisor.stop(0);
    expect(await supervisor.exited).toBe(1);
    expect(lines.join('\n')).toContain('misconfigured refused its configuration (exit 78)');
    expect(lines.join('\n')).not.toContain('restarting');
  }, 20_000);
});
