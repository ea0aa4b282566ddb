// Starts the real `npm start` entry in a child process on the embedded defaults and speaks HTTP to
// it like a client would, then restarts it on the same data directory.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, stopServer, type RunningServer } from '#test/support/dev-server-process.ts';

type Body = any; // `any`: bodies are read field by field

async function json(response: Response): Promise<Body> {
  return response.json();
}

describe('npm start (dev server over HTTP)', () => {
  let dataDir: string;
  let server: RunningServer;
  let adminPassword: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'tessera-e2e-'));
    server = await startServer(dataDir);
    adminPassword = (await readFile(path.join(dataDir, 'admin-password.txt'), 'utf8')).trim();
  }, 60_000);
  afterAll(async () => {
    if (server) await stopServer(server);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('prints the generated superuser password once and keeps it under DATA_DIR', () => {
    expect(server.output).toContain(`generated password: ${adminPassword}`);
    expect(adminPassword.length).toBeGreaterThanOrEqual(20);
  });

  it('serves the sign-in, user creation and listing flow', async () => {
    const login = await fetch(`${server.url}/api/cloud/auth/jwt/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: adminPassword }),
    });
    expect(login.status).toBe(200);
    const { access, user } = await json(login);
    expect(user.username).toBe('admin');

    const created = await fetch(`${server.url}/api/users/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${access}` },
      body: JSON.stringify({ username: 'e2e-user', email: 'e2e@example.com', password: 'e2e-password-1' }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-request-id')).toBeTruthy();

    const list = await fetch(`${server.url}/api/cloud/users/?ordering=-username`, { headers: { authorization: `Bearer ${access}` } });
    const page = await json(list);
    expect(page.results.map((u: { username: string }) => u.username)).toEqual(['e2e-user', 'admin']);
  });

  it('answers unknown paths with the JSON 404 envelope', async () => {
    const answer = await fetch(`${server.url}/nowhere`);
    expect(answer.status).toBe(404);
    expect(await json(answer)).toMatchObject({ code: 'NOT_FOUND', detail: 'Not found.' });
  });

  it('answers a request line over 16 KB and an unparsable request in the error envelope, with a request id', async () => {
    // A filter of thousands of values in the URL: node refuses it before any handler runs.
    const long = await fetch(`${server.url}/api/cloud/users/?search=${'a'.repeat(20_000)}`);
    expect(long.status).toBe(431);
    expect(long.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await json(long)).toMatchObject({ status: 'error', code: 'REQUEST_HEADER_FIELDS_TOO_LARGE' });
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toContain('"code":"BAD_REQUEST"');
    // The server still answers as before.
    expect((await fetch(`${server.url}/nowhere`)).status).toBe(404);
  });

  it('keeps its data across a restart and does not recreate the superuser', async () => {
    expect(await stopServer(server)).toBe(0);
    server = await startServer(dataDir);
    expect(server.output).not.toContain('generated password');
    const login = await fetch(`${server.url}/api/auth/jwt/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'e2e-user', password: 'e2e-password-1' }),
    });
    expect(login.status).toBe(200);
  }, 60_000);
});
