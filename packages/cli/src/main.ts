/** The `kairos` bin: the user CLI (cli.ts) on this process's arguments, environment and streams. */
import { runCli } from './cli.js';

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  io: {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  },
});
process.exitCode = code;
