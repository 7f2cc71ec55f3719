/**
 * `kairos`, the CLI for users: reads arguments, runs one command against the API at KAIROS_URL and
 * answers the exit status. Output contract (scripts and CI rely on it): human text by default,
 * `--json` for the API's answers as JSON on stdout; messages on stderr; exit 0 on success (plan:
 * nothing would change), 2 when plan finds changes (or a test run failed), 1 when the API refused
 * or could not be reached, 64 on usage errors.
 */
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { KairosApiError } from '@kairos/client';
import {
  EXIT,
  UsageError,
  apply,
  exportDocument,
  listEndpoints,
  listJobs,
  plan,
  tailRuns,
  testEndpoint,
  type CommandContext,
} from './commands.js';
import type { Io } from './output.js';
import { connect, login, signInOf, type Env } from './sign-in.js';

export const USER_USAGE = `Usage: kairos <command> [options]

Configuration as code (a kairos.yaml: apiVersion kairos/v1, jobs and endpoints by key):
  kairos plan -f <file> [--prune] [--json]          what applying the file would change
                                                    (exit 0: nothing, 2: changes)
  kairos apply -f <file> [--prune] [--yes] [--json] make the account match the file
  kairos export [--format yaml|json] [-o <file>]    the account's configuration as a file

Jobs, endpoints and runs:
  kairos jobs list [--status active|paused|archived] [--json]
  kairos endpoints list [--job <job>] [--json]
  kairos runs tail <endpoint> [--limit <n>] [--no-follow] [--interval <seconds>] [--json]
  kairos test <endpoint> [--json]                   a test run now (exit 2 when it failed)

Sign-in:
  kairos login                                      device sign-in; the token is cached
  kairos logout

<job> is a job key or id; <endpoint> is job-key/endpoint-key or an endpoint id; -f - reads stdin.
Environment: KAIROS_URL (default http://127.0.0.1:3000), KAIROS_API_KEY (else the token of
kairos login), KAIROS_TOKEN_FILE (default ~/.config/kairos/cli-token.json).
Exit status: 0 done, 2 plan found changes or a test run failed, 1 refused, 64 usage error.`;

export interface CliOptions {
  env: Env;
  io: Io;
  stdin?: NodeJS.ReadStream;
  /** Polls of `runs tail` before it ends (tests); absent: until interrupted. */
  tailRounds?: number;
}

const OPTIONS = {
  file: { type: 'string', short: 'f' },
  output: { type: 'string', short: 'o' },
  format: { type: 'string' },
  prune: { type: 'boolean', default: false },
  yes: { type: 'boolean', short: 'y', default: false },
  json: { type: 'boolean', default: false },
  job: { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  interval: { type: 'string' },
  'no-follow': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export async function runCli(argv: string[], options: CliOptions): Promise<number> {
  const { io } = options;
  let json = argv.includes('--json');
  try {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
    json = values.json;
    const [command, sub, target, ...extra] = positionals;
    if (values.help || !command || command === 'help') {
      io.out(USER_USAGE);
      return command || values.help ? EXIT.ok : EXIT.usage;
    }
    const signIn = signInOf(options.env, io.err);
    if (command === 'login') {
      await login(signIn);
      return EXIT.ok;
    }
    if (command === 'logout') {
      await signIn.store.clear();
      io.err(`signed out: removed ${signIn.store.path}`);
      return EXIT.ok;
    }
    const stdin = options.stdin ?? process.stdin;
    const ctx: CommandContext = {
      api: await connect(signIn, options.env),
      io,
      json,
      read: (path) => (path === '-' ? readStream(stdin) : readFile(path, 'utf8')),
      confirm: async (question) => {
        if (!stdin.isTTY) return null;
        const prompt = createInterface({ input: stdin, output: process.stderr });
        const answer = await prompt.question(`${question} [y/N] `);
        prompt.close();
        return /^y(es)?$/i.test(answer.trim());
      },
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    };
    const file = () => {
      if (!values.file) throw new UsageError(`kairos ${command} needs -f <file>`);
      return values.file;
    };
    const none = (...unexpected: (string | undefined)[]) => {
      const given = unexpected.filter((value) => value !== undefined);
      if (given.length > 0) throw new UsageError(`unexpected argument ${given.join(' ')}`);
    };
    switch (command) {
      case 'plan':
        none(sub, target, ...extra);
        return await plan(ctx, file(), values.prune);
      case 'apply':
        none(sub, target, ...extra);
        return await apply(ctx, file(), values.prune, values.yes);
      case 'export': {
        none(sub, target, ...extra);
        const format = values.format ?? (json ? 'json' : 'yaml');
        if (format !== 'yaml' && format !== 'json') throw new UsageError('--format is yaml or json');
        return await exportDocument(ctx, format, values.output);
      }
      case 'jobs':
        if (sub !== 'list') throw new UsageError('kairos jobs list');
        none(target, ...extra);
        if (values.status && !['active', 'paused', 'archived'].includes(values.status)) {
          throw new UsageError('--status is active, paused or archived');
        }
        return await listJobs(ctx, values.status as 'active' | 'paused' | 'archived' | undefined);
      case 'endpoints':
        if (sub !== 'list') throw new UsageError('kairos endpoints list [--job <job>]');
        none(target, ...extra);
        return await listEndpoints(ctx, values.job);
      case 'runs': {
        if (sub !== 'tail' || !target) throw new UsageError('kairos runs tail <endpoint>');
        none(...extra);
        const limit = Number(values.limit ?? 10);
        const intervalSec = Number(values.interval ?? 2);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit is 1 to 1000');
        if (!(intervalSec >= 1)) throw new UsageError('--interval is at least 1 second');
        return await tailRuns(ctx, target, {
          limit,
          follow: !values['no-follow'],
          intervalMs: intervalSec * 1000,
          ...(options.tailRounds !== undefined ? { rounds: options.tailRounds } : {}),
        });
      }
      case 'test':
        if (!sub) throw new UsageError('kairos test <endpoint>');
        none(target, ...extra);
        return await testEndpoint(ctx, sub);
      default:
        throw new UsageError(`unknown command ${command}: see kairos --help`);
    }
  } catch (error) {
    return failed(error, io, json);
  }
}

function failed(error: unknown, io: Io, json: boolean): number {
  // parseArgs refuses unknown options and missing values with ERR_PARSE_ARGS_*: usage errors too.
  if (error instanceof UsageError || String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
    io.err(`kairos: ${(error as Error).message}`);
    return EXIT.usage;
  }
  const apiError =
    error instanceof KairosApiError
      ? error
      : new KairosApiError('INTERNAL_ERROR', error instanceof Error ? error.message : String(error), null);
  if (json) {
    const details = apiError.details ? { details: apiError.details } : {};
    io.out(JSON.stringify({ error: { code: apiError.code, message: apiError.message, ...details } }));
  }
  io.err(`kairos: ${apiError.code}: ${apiError.message}`);
  for (const issue of apiError.issues.slice(1)) io.err(`  ${issue.field}: ${issue.message}`);
  return EXIT.refused;
}

async function readStream(stream: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}
