/**
 * `pnpm kairos …` in a checkout: the user commands (packages/cli, against KAIROS_URL) and the
 * operator commands (services/api/src/cli/kairos.ts, against DATABASE_URL), told apart by their
 * first word (OPERATOR_COMMANDS). `--help` shows both, under their own headings. Operator commands
 * with DATABASE_URL / REDIS_URL unset use the embedded stores of a running `pnpm start`
 * (.kairos/stores.json, scripts/stores.mjs).
 */
import { USER_USAGE, runCli } from '../packages/cli/src/index.js';
import { OPERATOR_COMMANDS, OPERATOR_USAGE } from '../services/api/src/cli/usage.js';
import { runningEmbeddedStores } from './stores.mjs';

const argv = process.argv.slice(2);
const [command] = argv;

if ((OPERATOR_COMMANDS as readonly string[]).includes(command ?? '')) {
  // Unset URLs name the embedded stores of a `pnpm start` running from this checkout, if any.
  for (const [name, url] of Object.entries(runningEmbeddedStores(process.env))) process.env[name] ||= url;
  // The operator CLI runs on import, on these same arguments.
  await import('../services/api/src/cli/kairos.js');
} else {
  const io = {
    out: (text: string) => process.stdout.write(`${text}\n`),
    err: (text: string) => process.stderr.write(`${text}\n`),
  };
  const help = !command || command === 'help' || argv.includes('--help') || argv.includes('-h');
  const code = await runCli(argv, {
    env: process.env,
    io: {
      ...io,
      out: (text) =>
        io.out(
          help && text === USER_USAGE
            ? `${text}\n\nOperator commands (on a server of the deployment: DATABASE_URL, KAIROS_MASTER_KEY):\n${OPERATOR_USAGE}`
            : text,
        ),
    },
  });
  process.exitCode = code;
}
