// Runs the real `npm run invoke` entry in a child process on a fresh embedded database, the way a
// developer would, and reads what it prints.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ADMIN_PASSWORD = 'invoke-e2e-password';

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

async function invoke(dataDir: string, ...args: string[]): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    ADMIN_PASSWORD,
    PASSWORD_SCRYPT_COST: '1024',
  };
  delete env.DATABASE_URL; // the embedded database, as on a fresh machine
  delete env.LOG_LEVEL; // the CLI's own default
  try {
    const { stdout, stderr } = await run(path.resolve('node_modules/.bin/tsx'), ['infra/local/invoke.ts', ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** The status line and the JSON body of the CLI's default output. */
type Body = any; // `any`: bodies are read field by field

function response(output: string): { status: number; body: Body } {
  const status = /^HTTP (\d{3})$/m.exec(output);
  const blank = output.indexOf('\n\n');
  return { status: Number(status?.[1]), body: blank < 0 ? undefined : JSON.parse(output.slice(blank + 2)) };
}

describe('npm run invoke', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'tessera-invoke-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  // The first run boots a fresh embedded database and applies every migration: past 30 s on a
  // loaded 2-core machine.
  it('obtains tokens for the superuser with the obtain-token fixture', async () => {
    const result = await invoke(dataDir, 'auth', 'obtain-token');

    expect(result.code).toBe(0);
    const { status, body } = response(result.stdout);
    expect(status).toBe(200);
    expect(body.access).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(body.refresh).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  }, 90_000);

  it('lists the superuser with the list-users fixture and a minted token', async () => {
    const result = await invoke(dataDir, 'console', 'list-users.json');

    expect(result.code).toBe(0);
    const { status, body } = response(result.stdout);
    expect(status).toBe(200);
    expect(body.results.map((user: { username: string }) => user.username)).toContain('admin');
  });

  it('creates a new user on every run of the create-user fixture', async () => {
    const first = await invoke(dataDir, 'console', 'create-user', '--quiet');
    const second = await invoke(dataDir, 'console', 'create-user', '--quiet');

    expect([first.code, second.code]).toEqual([0, 0]);
    const [one, two] = [JSON.parse(first.stdout), JSON.parse(second.stdout)];
    expect(one.username).toMatch(/^user-/);
    expect(two.username).toMatch(/^user-/);
    expect(one.username).not.toBe(two.username);
    // Two fresh processes, each loading and ranking the password-strength dictionaries once
    // (about a second each on a busy machine) on top of starting up.
  }, 60_000);

  it('fails with the list of fixtures for an unknown fixture', async () => {
    const result = await invoke(dataDir, 'console', 'no-such-fixture');

    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('No fixture "no-such-fixture"');
    expect(result.stderr).toContain('list-users');
  });

  it('fails with the list of groups for an unknown group', async () => {
    const result = await invoke(dataDir, 'nope', 'list-users');

    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Unknown group "nope"[\s\S]*auth, console/);
  });

  it('names the file of a fixture that is not JSON', async () => {
    const broken = path.join(dataDir, 'broken.json');
    await writeFile(broken, '{"version": "2.0",');

    const result = await invoke(dataDir, 'auth', broken);

    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`${broken} is not valid JSON`);
  });
});
