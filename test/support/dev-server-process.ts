// The real dev server (`infra/local/server.ts`) in a child process on a data folder of the test's
// own, for the end-to-end tests that speak HTTP to it as a client would. `startServer` runs `npm start`
// as a fresh machine does (the embedded defaults, a generated admin password); `startServerProcess`
// is for tests that kill it, restart it or back up what it left. Both run the start script's own node
// command (start-command.ts), node itself the child, so a SIGKILL hits the server.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { startScriptNodeArgs } from './start-command.ts';

export interface RunningServer {
  process: ChildProcessWithoutNullStreams;
  url: string;
  output: string;
}

/** Starts the server; `startTimeoutMs` bounds the wait for its "listening" line (the child is killed then). */
export function startServer(dataDir: string, startTimeoutMs = 45_000): Promise<RunningServer> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', PASSWORD_SCRYPT_COST: '1024', LOG_LEVEL: 'WARN' };
  delete env.DATABASE_URL; // the embedded default is what `npm start` runs on a fresh machine
  delete env.ADMIN_PASSWORD;
  const child = spawn(process.execPath, startScriptNodeArgs(), { env });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${output}`));
    }, startTimeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve({ process: child, url: found[1]!, output });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

export function stopServer(server: RunningServer): Promise<number | null> {
  return new Promise((resolve) => {
    server.process.removeAllListeners('exit');
    server.process.once('exit', (code) => resolve(code));
    server.process.kill('SIGTERM');
  });
}

export const SERVER_ADMIN = { username: 'admin', password: 'crash-admin-password-123' };

export interface ServerProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  output(): string;
}

export interface ServerOptions {
  dataDir: string;
  /** PostgreSQL to run on; unset runs PGlite under dataDir. */
  databaseUrl?: string;
  env?: Record<string, string>;
}

/** Starts the server and resolves once it listens; rejects with its output when it exits first. */
export function startServerProcess(options: ServerOptions): Promise<ServerProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: options.dataDir,
    PORT: '0',
    PASSWORD_SCRYPT_COST: '1024',
    LOG_LEVEL: 'WARN',
    ADMIN_USERNAME: SERVER_ADMIN.username,
    ADMIN_PASSWORD: SERVER_ADMIN.password,
    RATE_LIMIT_ENABLED: 'false',
    ...options.env,
  };
  delete env.DATABASE_URL;
  if (options.databaseUrl !== undefined) env.DATABASE_URL = options.databaseUrl;
  const child = spawn(process.execPath, startScriptNodeArgs(), { env });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 150_000);
    const onData = () => {
      const found = /listening on (http:\/\/\S+)/.exec(output);
      if (found === null) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      resolve({ child, url: found[1]!, output: () => output });
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    };
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Sends the signal and resolves once the process is gone. */
export function stopServerProcess(server: ServerProcess, signal: NodeJS.Signals): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    server.child.once('exit', () => resolve());
    server.child.kill(signal);
  });
}

export interface JsonAnswer {
  status: number;
  body: any; // `any`: test bodies are read field by field
}

/** A JSON client for one server: the admin's token and a tenant header once set. */
export class ServerClient {
  token: string | undefined;
  tenant: Record<string, string> = {};

  constructor(readonly url: string) {}

  withTenant(tenant: Record<string, string>): this {
    this.tenant = tenant;
    return this;
  }

  async signIn(): Promise<void> {
    const answer = await this.json('POST', '/api/cloud/auth/jwt/token/', SERVER_ADMIN);
    if (answer.status !== 200) throw new Error(`sign-in: ${answer.status} ${JSON.stringify(answer.body)}`);
    this.token = answer.body.access;
  }

  /** Sends a JSON body (or raw bytes) and parses a JSON answer; a broken connection rejects. */
  async json(method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
    const raw = Buffer.isBuffer(body);
    const response = await fetch(`${this.url}${route}`, {
      method,
      headers: {
        ...this.tenant,
        ...(this.token === undefined ? {} : { authorization: `Bearer ${this.token}` }),
        ...(body === undefined || raw ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text.length > 0 && text.startsWith('{') ? JSON.parse(text) : text };
  }

  async bytes(route: string): Promise<{ status: number; bytes: Buffer }> {
    const response = await fetch(`${this.url}${route}`, {
      headers: { ...this.tenant, ...(this.token === undefined ? {} : { authorization: `Bearer ${this.token}` }) },
    });
    return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  /** `json`, throwing unless the status is the one expected. */
  async expect(status: number, method: string, route: string, body?: unknown): Promise<JsonAnswer> {
    const answer = await this.json(method, route, body);
    if (answer.status !== status)
      throw new Error(`${method} ${route}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer;
  }
}
