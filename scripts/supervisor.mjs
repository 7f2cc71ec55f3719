/**
 * The process supervisor behind `pnpm start`: one child process per service, a service that exits
 * unexpectedly is restarted after a backoff, and only a service that keeps crashing stops the whole.
 *
 * Written here rather than taken from a library (pm2, forever, node-supervisor): the lockfile is not
 * ours to change, and what we need is ~150 lines — a pure restart policy (time passed in, unit-tested)
 * and a loop that applies it to child processes.
 *
 *   crash n within the window → restart after min(initialDelayMs × 2^(n−1), maxDelayMs)
 *   crash maxCrashes within windowMs → give up: stop every service, exit 1
 *   exit 78 (EX_CONFIG, a bad setting) → give up at once: a restart cannot fix the environment
 *   SIGINT / SIGTERM → SIGTERM to every child, SIGKILL after stopTimeoutMs; a second signal kills now
 */
import { spawn } from 'node:child_process';

/** 1 s doubling to 30 s; 5 crashes in 2 minutes gives up (1+2+4+8 s of backoff fit in the window). */
export const DEFAULT_POLICY = { initialDelayMs: 1000, maxDelayMs: 30_000, maxCrashes: 5, windowMs: 120_000 };
/** The executor drains in-flight executions for up to 35 s (EXECUTOR_SHUTDOWN_TIMEOUT_MS) on SIGTERM. */
export const DEFAULT_STOP_TIMEOUT_MS = 45_000;
const EX_CONFIG = 78;

/**
 * The restart decision for one service, a pure function of the crash times (ms) it is given.
 * Crashes older than the window are forgotten, so a service that ran well for two minutes starts
 * again from the initial delay.
 */
export function createRestartPolicy(options = {}) {
  const { initialDelayMs, maxDelayMs, maxCrashes, windowMs } = { ...DEFAULT_POLICY, ...options };
  let crashTimesMs = [];
  return {
    recordCrash(nowMs) {
      crashTimesMs = [...crashTimesMs.filter((at) => nowMs - at < windowMs), nowMs];
      const crashes = crashTimesMs.length;
      if (crashes >= maxCrashes) return { action: 'give-up', crashes, windowMs };
      return { action: 'restart', crashes, delayMs: Math.min(initialDelayMs * 2 ** (crashes - 1), maxDelayMs) };
    },
  };
}

const describeExit = (code, signal) => (signal ? `signal ${signal}` : `code ${code}`);

/**
 * Starts `services` ([{ name, command, args }], each optionally with its own env, stdio, uid/gid and
 * stopSignal: the embedded stores of scripts/stores.mjs) and keeps them running. Returns
 * `{ exited, stop(code), pidOf(name) }`: `exited` resolves with the exit code the whole should use
 * once every child is gone (0 after stop(0), 1 after a give-up).
 */
export function superviseServices({
  services,
  env = process.env,
  log = (line) => console.error(line),
  policy = {},
  stopTimeoutMs = DEFAULT_STOP_TIMEOUT_MS,
  stdio = 'inherit',
  cwd = process.cwd(),
}) {
  const children = new Map();
  const restartTimers = new Map();
  const stopSignals = new Map(services.map((service) => [service.name, service.stopSignal]));
  let stopping = false;
  let exitCode = 0;
  let resolveExited;
  const exited = new Promise((resolve) => (resolveExited = resolve));

  const settleIfDone = () => {
    if (stopping && children.size === 0) resolveExited(exitCode);
  };

  function start(service, restartPolicy) {
    const child = spawn(service.command, service.args, {
      env: service.env ?? env,
      stdio: service.stdio ?? stdio,
      cwd,
      ...(service.uid === undefined ? {} : { uid: service.uid, gid: service.gid }),
    });
    children.set(service.name, child);
    child.on('error', (error) => log(`kairos: ${service.name} could not start: ${error.message}`));
    child.on('exit', (code, signal) => {
      children.delete(service.name);
      if (stopping) return settleIfDone();
      if (code === EX_CONFIG) {
        log(`kairos: ${service.name} refused its configuration (exit ${EX_CONFIG}); stopping every service`);
        return stop(1);
      }
      const decision = restartPolicy.recordCrash(Date.now());
      if (decision.action === 'give-up') {
        log(
          `kairos: ${service.name} crashed ${decision.crashes} times in ${decision.windowMs / 1000} s ` +
            `(last: ${describeExit(code, signal)}); giving up and stopping every service`,
        );
        return stop(1);
      }
      log(
        `kairos: ${service.name} exited unexpectedly (${describeExit(code, signal)}); ` +
          `restarting in ${decision.delayMs / 1000} s (crash ${decision.crashes})`,
      );
      const timer = setTimeout(() => {
        restartTimers.delete(service.name);
        if (stopping) return;
        start(service, restartPolicy);
        log(`kairos: restarted ${service.name} (pid ${children.get(service.name)?.pid})`);
      }, decision.delayMs);
      restartTimers.set(service.name, timer);
    });
  }

  /** Graceful stop of every child; calling it again (a second Ctrl-C) kills them at once. */
  function stop(code = 0) {
    if (stopping) {
      for (const child of children.values()) child.kill('SIGKILL');
      return exited;
    }
    stopping = true;
    exitCode = code;
    for (const timer of restartTimers.values()) clearTimeout(timer);
    restartTimers.clear();
    for (const [name, child] of children) child.kill(stopSignals.get(name) ?? 'SIGTERM');
    const deadline = setTimeout(() => {
      for (const [name, child] of children) {
        log(`kairos: ${name} did not stop within ${stopTimeoutMs / 1000} s; killing it`);
        child.kill('SIGKILL');
      }
    }, stopTimeoutMs);
    deadline.unref();
    settleIfDone();
    return exited;
  }

  for (const service of services) start(service, createRestartPolicy(policy));
  log(`kairos: started ${services.map((s) => `${s.name} (pid ${children.get(s.name)?.pid})`).join(', ')}`);
  return { exited, stop, pidOf: (name) => children.get(name)?.pid };
}
