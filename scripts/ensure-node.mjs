#!/usr/bin/env node
/**
 * First step of `pnpm start`, `pnpm test`, `pnpm check` and `pnpm bench`: fails unless the scripts run
 * on the project's Node.js line (.nvmrc). On linux-x64/arm64 `pnpm install` provides it as the root
 * optional dependency `node-linux-<arch>`, whose `node` bin pnpm puts first on PATH in every script;
 * elsewhere install that Node.js line yourself. Prints the runtime it found.
 */
import { readFileSync } from 'node:fs';

const wanted = readFileSync(new URL('../.nvmrc', import.meta.url), 'utf8').trim();
const major = (version) => Number(version.replace(/^v/, '').split('.')[0]);
if (major(process.versions.node) !== major(wanted)) {
  console.error(
    `ensure-node: Node.js ${process.versions.node} (${process.execPath}) runs this script, but Kairos needs ` +
      `Node.js ${major(wanted)} (.nvmrc: ${wanted}). Run \`pnpm install\` (it installs node-linux-<arch>@${wanted} ` +
      `on Linux), or install Node.js ${major(wanted)} and put it first on PATH.`,
  );
  process.exit(1);
}
if (process.argv.includes('--verbose'))
  console.error(`ensure-node: Node.js ${process.versions.node} (${process.execPath})`);
