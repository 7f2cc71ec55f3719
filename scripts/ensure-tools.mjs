#!/usr/bin/env node
/**
 * First step of `pnpm test`: the system tools the tests drive, installed from Debian's packages
 * when missing (the README's test command must work on a fresh machine):
 *   docker-compose  validates docker-compose.yml offline (pnpm run validate:deploy)
 *   kubectl         renders the Kustomize overlays (`kubectl kustomize`), unless kustomize exists
 *   chromium        the browser tests (test/browser, playwright-core with /usr/bin/chromium)
 *   prometheus      its promtool checks and unit-tests the alert rules (test/observability.test.ts)
 *   golang-go       runs the Go receiver snippet of docs/verifying-signatures.md (test/signature-vectors.test.ts)
 * With the argument `images` (first step of `pnpm test:images`, scripts/test-images.mjs) it checks
 * instead what building and running the images needs: podman and buildah (the engine), runc (crun
 * refuses hybrid cgroups, as on our build VMs), mmdebstrap
 * (the local base image when node:<major>-slim cannot be pulled).
 * Without root or apt-get it cannot install: it names what is missing and fails (never skips).
 */
import { spawnSync } from 'node:child_process';

const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

const missing = (
  process.argv[2] === 'images'
    ? [
        !has('podman') && 'podman',
        !has('buildah') && 'buildah',
        !has('runc') && 'runc',
        !has('mmdebstrap') && 'mmdebstrap',
      ]
    : [
        !has('docker-compose') && 'docker-compose',
        !has('kustomize') && !has('kubectl') && 'kubectl',
        !has('chromium') && 'chromium',
        !has('promtool') && 'prometheus',
        !has('go') && 'golang-go',
      ]
).filter(Boolean);

if (missing.length === 0) process.exit(0);

const canInstall = process.getuid?.() === 0 && has('apt-get');
if (!canInstall) {
  console.error(
    `ensure-tools: missing ${missing.join(', ')}; install them with: sudo apt-get install -y ${missing.join(' ')}`,
  );
  process.exit(1);
}
console.error(`ensure-tools: installing ${missing.join(', ')} (Debian packages)`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
const run = (args) => spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env }).status === 0;
// One package at a time, so one that cannot be installed does not keep the others out.
let updated = false;
const failed = missing.filter((name) => {
  if (run(['install', '-y', '-qq', name])) return false;
  if (!updated) updated = run(['update', '-qq']);
  return !run(['install', '-y', '-qq', name]);
});
if (failed.length > 0) {
  console.error(`ensure-tools: could not install ${failed.join(', ')}`);
  process.exit(1);
}
