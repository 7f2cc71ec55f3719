#!/usr/bin/env node
/**
 * First step of `pnpm start`, `pnpm test`, `pnpm check` and `pnpm bench`: fails unless the scripts run
 * on the project's Node.js line (.nvmrc). On linux-x64/arm64 `pnpm install` provides it as the root
 * optional dependency `node-linux-<arch>`, whose `node` bin pnpm puts first on PATH in every script;
 * elsewhere install that Node.js line yourself. Prints the runtime it found.
 *
 * It also fails when .nvmrc pins a release below the lowest patched release of its line recorded in
 * scripts/node-releases.json (or the line is not recorded there), so a security release that the pin
 * has not followed stops `pnpm test` instead of passing unnoticed; a running Node.js below it (one
 * installed by hand on another platform) is named in a warning.
 */
import { readFileSync } from 'node:fs';

const wanted = readFileSync(new URL('../.nvmrc', import.meta.url), 'utf8').trim();
const releases = JSON.parse(readFileSync(new URL('./node-releases.json', import.meta.url), 'utf8'));
const parts = (version) => version.replace(/^v/, '').split('.').map(Number);
const major = (version) => parts(version)[0];
/** Negative when a < b, 0 when equal, positive when a > b (major.minor.patch). */
const compareVersions = (a, b) => {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
};

if (major(process.versions.node) !== major(wanted)) {
  console.error(
    `ensure-node: Node.js ${process.versions.node} (${process.execPath}) runs this script, but Kairos needs ` +
      `Node.js ${major(wanted)} (.nvmrc: ${wanted}). Run \`pnpm install\` (it installs node-linux-<arch>@${wanted} ` +
      `on Linux), or install Node.js ${major(wanted)} and put it first on PATH.`,
  );
  process.exit(1);
}
const line = releases.lines[String(major(wanted))];
if (!line) {
  console.error(
    `ensure-node: scripts/node-releases.json records no lowest patched release for Node.js ${major(wanted)} ` +
      `(.nvmrc: ${wanted}); add the line's latest security release there.`,
  );
  process.exit(1);
}
if (compareVersions(wanted, line.lowestPatched) < 0) {
  console.error(
    `ensure-node: .nvmrc pins Node.js ${wanted}, below ${line.lowestPatched}, the lowest release of its line ` +
      `with every security fix (scripts/node-releases.json: ${line.fixes}). Move .nvmrc, .node-version, ` +
      `package.json (engines, node-linux-<arch>) and deploy/Dockerfile to ${line.lowestPatched} or later.`,
  );
  process.exit(1);
}
if (compareVersions(process.versions.node, line.lowestPatched) < 0)
  console.error(
    `ensure-node: warning: Node.js ${process.versions.node} (${process.execPath}) lacks security fixes of ` +
      `${line.lowestPatched} (scripts/node-releases.json); install ${wanted}.`,
  );
if (process.argv.includes('--verbose'))
  console.error(`ensure-node: Node.js ${process.versions.node} (${process.execPath})`);
