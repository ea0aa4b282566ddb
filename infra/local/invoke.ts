// `npm run invoke -- <group> <fixture>`: calls one group's Lambda handler with an API Gateway event
// fixture on the local data of `npm start`, like `sam local invoke -e`, and prints the result. Only
// the target group's handler is imported, so a run on an existing DATA_DIR stays short; the time it
// took (wall and CPU since the process started) is printed with the status.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { TokenPair } from '#shared/auth/tokens.ts';
import { ConfigError, loadConfig } from '#shared/config.ts';
import { users } from '#shared/db/platform-schema.ts';
import type { Runtime } from '#shared/runtime/runtime.ts';
import { bootLocal } from './boot.ts';
import { FixtureError, listFixtures, readFixture, resolveFixture } from './event-fixtures.ts';
import { fillPlaceholders, PLACEHOLDER_HELP, type PlaceholderSource } from './fixture-placeholders.ts';
import { invokableGroups, loadGroupHandler } from './invoke-groups.ts';
import { lambdaContext } from './gateway-event.ts';

type OutputMode = 'full' | 'quiet' | 'json';

interface Invocation {
  group: string;
  fixtureFile: string;
  output: OutputMode;
}

/** A mistake on the command line: exit code 2, with the full usage when the message alone is not enough. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly showUsage = true,
  ) {
    super(message);
  }
}

async function usage(): Promise<string> {
  const groups = await Promise.all(
    (await invokableGroups()).map(async (group) => `  ${group}: ${(await listFixtures(group)).join(', ') || '(no fixtures)'}`),
  );
  return [
    'Usage: npm run invoke -- <group> <fixture> [--quiet | --json]',
    '',
    '  <fixture>  a file name in events-fixtures/<group>/ (".json" optional) or a path to an event file',
    '  --quiet    print only the response body',
    '  --json     print the whole result as one JSON document (body parsed when it is JSON)',
    '',
    'Groups and their fixtures:',
    ...groups,
    '',
    'Placeholders filled in fixture strings:',
    ...PLACEHOLDER_HELP.map((line) => `  ${line}`),
  ].join('\n');
}

async function parseArguments(argv: string[]): Promise<Invocation> {
  const flags = argv.filter((arg) => arg.startsWith('--'));
  const positional = argv.filter((arg) => !arg.startsWith('--'));
  const unknownFlag = flags.find((flag) => !['--quiet', '--json', '--help'].includes(flag));
  if (unknownFlag !== undefined) throw new UsageError(`Unknown option ${unknownFlag}`);
  if (flags.includes('--quiet') && flags.includes('--json')) throw new UsageError('Choose one of --quiet and --json');
  if (positional.length === 0) throw new UsageError('');
  const [group, reference, ...extra] = positional;
  const groups = await invokableGroups();
  if (group === undefined || !groups.includes(group)) {
    throw new UsageError(`Unknown group "${group}". Groups: ${groups.join(', ')}`, false);
  }
  if (reference === undefined) {
    const available = await listFixtures(group);
    throw new UsageError(`Name a fixture of ${group}:\n  ${available.join('\n  ') || '(none yet)'}`, false);
  }
  if (extra.length > 0) throw new UsageError(`Unexpected arguments: ${extra.join(' ')}`);
  // npm runs scripts from the package root; a path typed by the user is relative to where they were.
  const cwd = process.env.INIT_CWD ?? process.cwd();
  const fixtureFile = await resolveFixture(group, reference, cwd);
  const output: OutputMode = flags.includes('--quiet') ? 'quiet' : flags.includes('--json') ? 'json' : 'full';
  return { group, fixtureFile, output };
}

/** Tokens minted for users looked up in the local database, and the superuser's known password. */
function placeholderSource(runtime: Runtime): PlaceholderSource {
  const pairs = new Map<string, Promise<TokenPair>>();
  const pairOf = (username: string): Promise<TokenPair> => {
    let pair = pairs.get(username);
    if (pair === undefined) {
      pair = (async () => {
        const [user] = await runtime.db.query((orm) =>
          orm.select({ uuid: users.uuid, username: users.username }).from(users).where(eq(users.username, username)),
        );
        if (user === undefined) {
          throw new FixtureError(`No user "${username}" in the local database, so no token can be minted for it: create the user first.`);
        }
        return runtime.tokens.issuePair(user);
      })();
      pairs.set(username, pair);
    }
    return pair;
  };
  const { config } = runtime;
  return {
    accessToken: async (username) => (await pairOf(username)).access.token,
    refreshToken: async (username) => (await pairOf(username)).refresh.token,
    password: async (username) => {
      if (username !== 'admin' && username !== config.admin.username) {
        throw new FixtureError(`Only the superuser's password is known locally: use {{password:admin}}, not {{password:${username}}}`);
      }
      if (config.admin.password !== undefined) return config.admin.password;
      const file = path.join(config.dataDir, 'admin-password.txt');
      const saved = await readFile(file, 'utf8').catch(() => undefined);
      if (saved === undefined || saved.trim() === '') {
        throw new FixtureError(`The superuser password is not known: set ADMIN_PASSWORD (${file} does not exist).`);
      }
      return saved.trim();
    },
  };
}

function headerLines(result: APIGatewayProxyStructuredResultV2): string[] {
  const lines = Object.entries(result.headers ?? {}).map(([name, value]) => `${name}: ${String(value)}`);
  for (const cookie of result.cookies ?? []) lines.push(`Set-Cookie: ${cookie}`);
  return lines;
}

/** The body as text, pretty-printed when it is JSON; binary bodies are summarised, not dumped. */
function bodyText(result: APIGatewayProxyStructuredResultV2): string | undefined {
  if (result.body === undefined || result.body === '') return undefined;
  if (result.isBase64Encoded) return `(${Buffer.from(result.body, 'base64').length} bytes, base64-encoded)`;
  try {
    return JSON.stringify(JSON.parse(result.body), null, 2);
  } catch {
    return result.body;
  }
}

function render(result: APIGatewayProxyStructuredResultV2, output: OutputMode): string {
  const body = bodyText(result);
  if (output === 'quiet') return body ?? '';
  if (output === 'json') {
    let parsedBody: unknown = result.body;
    if (result.body !== undefined && !result.isBase64Encoded) {
      try {
        parsedBody = JSON.parse(result.body);
      } catch {
        // not JSON: keep the text
      }
    }
    return JSON.stringify({ ...result, body: parsedBody }, null, 2);
  }
  return [`HTTP ${result.statusCode ?? 200}`, ...headerLines(result), ...(body === undefined ? [] : ['', body])].join('\n');
}

async function main(argv: string[]): Promise<void> {
  // Request log lines share stdout with the result; keep them to warnings unless asked for.
  if (!process.env.LOG_LEVEL) process.env.LOG_LEVEL = 'WARN';
  if (argv.includes('--help')) {
    console.log(await usage());
    return;
  }
  const invocation = await parseArguments(argv);
  const fixture = await readFixture(invocation.fixtureFile);
  const config = loadConfig();
  const { runtime, superuser } = await bootLocal(config);
  try {
    if (superuser.generatedPassword !== undefined) {
      console.error(`Created superuser ${superuser.username}; generated password saved in ${superuser.passwordFile}`);
    }
    const event = await fillPlaceholders(fixture, placeholderSource(runtime));
    const handler = await loadGroupHandler(invocation.group);
    const startedAt = performance.now();
    const result = await handler(event, lambdaContext(invocation.group));
    const durationMs = Math.round(performance.now() - startedAt);
    console.log(render(result, invocation.output));
    if (invocation.output === 'full') {
      const cpu = process.cpuUsage();
      const seconds = (ms: number): string => (ms / 1000).toFixed(1);
      console.error(
        `${invocation.group} ${path.basename(invocation.fixtureFile)}: ${result.statusCode ?? 200} in ${durationMs} ms ` +
          `(whole run ${seconds(performance.now())} s, ${seconds((cpu.user + cpu.system) / 1000)} s CPU)`,
      );
    }
  } finally {
    // PGlite keeps the process alive until it is closed.
    await runtime.db.close();
  }
}

async function report(error: unknown): Promise<number> {
  if (error instanceof UsageError) {
    const help = error.showUsage ? await usage() : 'Run npm run invoke -- --help for the usage.';
    console.error(error.message === '' ? help : `${error.message}\n\n${help}`);
    return 2;
  }
  if (error instanceof FixtureError || error instanceof ConfigError) {
    console.error(error.message);
    return error instanceof FixtureError ? 2 : 1;
  }
  console.error('invoke failed:', error);
  return 1;
}

// Exits explicitly (nothing left running should keep the CLI alive), but only once stdout is
// flushed: writes to a pipe are asynchronous on some platforms and a large body would be cut short.
const code = await main(process.argv.slice(2)).then(() => 0, report);
await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
process.exit(code);
