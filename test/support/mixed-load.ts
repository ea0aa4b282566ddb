// Mixed traffic against a dev server in a child process: many keep-alive connections, each a client
// that loops over the platform's everyday requests (sign-in, user and record lists, record writes,
// uploads, downloads) and counts what came back. The load benchmark, the soak and their short form
// in CI (test/e2e/load.test.ts) all drive it; it measures, the caller decides what fails.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startScriptNodeArgs } from './start-command.ts';
import { createEmptyTestDatabase, type TestDatabase } from './test-database.ts';

/** The platform's settings for a server under load: rate limits on but out of reach, quick hashes. */
export const LOAD_SERVER_ENV = {
  RATE_LIMIT_CONSOLE_PER_MINUTE: '100000000',
  RATE_LIMIT_CONSOLE_WRITES_PER_MINUTE: '100000000',
  RATE_LIMIT_LOGIN_PER_HOUR: '100000000',
  RATE_LIMIT_AUTHENTICATED_PER_HOUR: '100000000',
  RATE_LIMIT_ANONYMOUS_PER_HOUR: '100000000',
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000000',
  // Sign-ins are part of the mix; the default scrypt cost would make them the whole of it.
  PASSWORD_SCRYPT_COST: '1024',
  LOG_LEVEL: 'ERROR',
  REQUEST_LOG: 'false',
} as const;

export const LOAD_ADMIN = { username: 'admin', password: 'load-admin-password-1' };

export interface ServerProcess {
  url: string;
  pid: number;
  /** Resident set size of the server process in bytes, from /proc. */
  rss(): Promise<number>;
  /** Open file descriptors of the server process (sockets, files, pipes). */
  openDescriptors(): Promise<number>;
  /** What the server printed, for a report when something went wrong. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts `infra/local/server.ts` (what `npm start` runs) in a node of its own on a free port. */
export function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, startScriptNodeArgs(), {
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      PORT: '0',
      ADMIN_USERNAME: LOAD_ADMIN.username,
      ADMIN_PASSWORD: LOAD_ADMIN.password,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${printed}`)), 90_000);
    child.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(printed);
      if (found === null) return;
      clearTimeout(timer);
      const pid = child.pid!;
      resolve({
        url: found[1]!,
        pid,
        rss: async () => {
          const status = await readFile(`/proc/${pid}/status`, 'utf8');
          return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
        },
        openDescriptors: async () => (await readdir(`/proc/${pid}/fd`)).length,
        output: () => printed,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${printed}`));
    });
  });
}

interface Answer {
  status: number;
  body: Buffer;
}

/** One request on the agent's keep-alive sockets; a socket error rejects (a dropped connection). */
function send(
  agent: Agent,
  url: string,
  method: string,
  route: string,
  headers: Record<string, string>,
  body?: Buffer | string,
): Promise<Answer> {
  const { hostname, port } = new URL(url);
  const withLength = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ agent, hostname, port, path: route, method, headers: withLength }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body: Buffer.concat(chunks) }));
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function json(agent: Agent, url: string, method: string, route: string, token: string | undefined, body?: unknown, extra = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extra };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const answer = await send(agent, url, method, route, headers, body === undefined ? undefined : JSON.stringify(body));
  if (answer.status >= 300) throw new Error(`${method} ${route}: ${answer.status} ${answer.body.toString().slice(0, 300)}`);
  return answer.body.length === 0 ? undefined : JSON.parse(answer.body.toString());
}

/** A load server of a test: the process, its fixture, and the one call that removes them all. */
export interface LoadServer {
  server: ServerProcess;
  fixture: LoadFixture;
  close(): Promise<void>;
}

/**
 * `npm start` in a child process for an e2e test, with the load settings, a data directory of its
 * own and, when DATABASE_URL is set, a fresh PostgreSQL database (else PGlite); the fixture made.
 */
export async function startLoadServer(name: string): Promise<LoadServer> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `tessera-${name}-`));
  let database: TestDatabase | undefined;
  let server: ServerProcess | undefined;
  const close = async () => {
    await server?.stop();
    await database?.dispose();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const env: Record<string, string> = { ...LOAD_SERVER_ENV, DATA_DIR: dataDir };
    if (process.env.DATABASE_URL) {
      database = await createEmptyTestDatabase();
      env.DATABASE_URL = database.url!;
    }
    server = await startServerProcess(env);
    return { server, fixture: await prepareLoadFixture(server.url), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** What the traffic works on: a site with an app, a materialized table and a bucket with an object. */
export interface LoadFixture {
  tenant: Record<string, string>;
  records: string;
  objects: string;
  download: string;
}

export async function prepareLoadFixture(url: string): Promise<LoadFixture> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { access: token } = await json(agent, url, 'POST', '/api/auth/jwt/token/', undefined, LOAD_ADMIN);
    const org = await json(agent, url, 'POST', '/api/cloud/organizations/', token, { name: 'Load org' });
    const site = await json(agent, url, 'POST', `/api/cloud/organizations/${org.data.slug}/sites/`, token, { name: 'Load site' });
    const tenant = { 'x-tenant': site.slug as string };
    const app = await json(agent, url, 'POST', '/api/apps/', token, { name: 'Load App' }, tenant);
    const appPath = `/api/apps/${app.slug}`;
    await json(agent, url, 'POST', `${appPath}/datasources/`, token, { name: 'Main', provider_type: 'flat_table' }, tenant);
    const fields = [
      { name: 'id', type: 'integer' },
      { name: 'title', type: 'string' },
      { name: 'amount', type: 'number' },
    ];
    await json(
      agent,
      url,
      'POST',
      `${appPath}/datasources/main/datatables/`,
      token,
      { name: 'events', json_schema: { fields, primaryKey: ['id'] } },
      tenant,
    );
    await json(agent, url, 'POST', `${appPath}/datatables/events/materialize/`, token, undefined, tenant);
    const bucket = await json(
      agent,
      url,
      'POST',
      `${appPath}/storage/buckets/`,
      token,
      { name: 'Files', app_category: 'attachments' },
      tenant,
    );
    const objects = `${appPath}/storage/buckets/${bucket.slug}/objects/`;
    const upload = await send(
      agent,
      url,
      'PUT',
      `${objects}seed/file.bin`,
      { ...tenant, authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      randomBytes(16 * 1024),
    );
    if (upload.status !== 201) throw new Error(`seed upload: ${upload.status} ${upload.body.toString()}`);
    return { tenant, records: `${appPath}/datatables/events/data/`, objects, download: `${objects}seed/file.bin` };
  } finally {
    agent.destroy();
  }
}

export type RequestKind = 'token' | 'users-list' | 'records-list' | 'record-write' | 'upload' | 'download';

/** One client's turn through the mix: lists most, then writes and downloads, uploads, a sign-in. */
const MIX: RequestKind[] = [
  'users-list',
  'records-list',
  'download',
  'record-write',
  'users-list',
  'records-list',
  'download',
  'record-write',
  'upload',
  'token',
];

export interface LoadTally {
  requests: number;
  byKind: Record<RequestKind, number>;
  /** Answers by status code. */
  statuses: Record<number, number>;
  serverErrors: number;
  /** Requests that failed on the socket (reset, hang-up, refused): each a dropped connection. */
  droppedConnections: number;
  /** Sockets the clients had to open: one per connection when none was dropped or closed. */
  socketsOpened: number;
  latenciesMs: number[];
  /** The first few failures, for the report. */
  failures: string[];
}

export interface MixedLoadOptions {
  url: string;
  fixture: LoadFixture;
  connections: number;
  durationSeconds: number;
  /** Stop each client after this many requests (its sign-in included), if the time is not up first. */
  turnsPerClient?: number;
  /** Requests per second over all connections; unset: each client sends as fast as answers come. */
  ratePerSecond?: number;
}

/** The given percentile (0–100) of latencies already sorted ascending. */
export function percentile(sorted: number[], wanted: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((wanted / 100) * sorted.length))]!;
}

export async function runMixedLoad(options: MixedLoadOptions): Promise<LoadTally> {
  const { url, fixture, connections } = options;
  const agent = new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  const tally: LoadTally = {
    requests: 0,
    byKind: { token: 0, 'users-list': 0, 'records-list': 0, 'record-write': 0, upload: 0, download: 0 },
    statuses: {},
    serverErrors: 0,
    droppedConnections: 0,
    socketsOpened: 0,
    latenciesMs: [],
    failures: [],
  };
  const originalCreate = agent.createConnection.bind(agent);
  agent.createConnection = ((...args: Parameters<Agent['createConnection']>) => {
    tally.socketsOpened += 1;
    return originalCreate(...args);
  }) as Agent['createConnection'];
  const deadline = performance.now() + options.durationSeconds * 1000;
  const uploadBytes = randomBytes(8 * 1024);
  const pauseMs = options.ratePerSecond === undefined ? 0 : (1000 * connections) / options.ratePerSecond;

  const client = async (index: number) => {
    // Each client signs in first (a request of the mix like the others), then takes its turns.
    let token: string | undefined;
    const turns = options.turnsPerClient ?? Number.POSITIVE_INFINITY;
    for (let turn = 0; turn < turns && performance.now() < deadline; turn += 1) {
      const kind = token === undefined ? 'token' : MIX[(index + turn) % MIX.length]!;
      const auth = { authorization: `Bearer ${token}` };
      const startedAt = performance.now();
      try {
        let answer: Answer;
        switch (kind) {
          case 'token':
            answer = await send(
              agent,
              url,
              'POST',
              '/api/auth/jwt/token/',
              { 'content-type': 'application/json' },
              JSON.stringify(LOAD_ADMIN),
            );
            if (answer.status === 200) token = JSON.parse(answer.body.toString()).access as string;
            break;
          case 'users-list':
            answer = await send(agent, url, 'GET', '/api/cloud/users/?page_size=20', auth);
            break;
          case 'records-list':
            answer = await send(agent, url, 'GET', `${fixture.records}?_sort=-id&page_size=20`, { ...auth, ...fixture.tenant });
            break;
          case 'record-write':
            answer = await send(
              agent,
              url,
              'POST',
              fixture.records,
              { ...auth, ...fixture.tenant, 'content-type': 'application/json' },
              JSON.stringify({ id: index * 10_000_000 + turn, title: `event ${turn} of client ${index}`, amount: turn / 7 }),
            );
            break;
          case 'upload':
            answer = await send(
              agent,
              url,
              'PUT',
              `${fixture.objects}clients/${index}/${turn % 5}.bin`,
              { ...auth, ...fixture.tenant, 'content-type': 'application/octet-stream' },
              uploadBytes,
            );
            break;
          case 'download':
            answer = await send(agent, url, 'GET', fixture.download, { ...auth, ...fixture.tenant });
            break;
        }
        tally.latenciesMs.push(performance.now() - startedAt);
        tally.requests += 1;
        tally.byKind[kind] += 1;
        tally.statuses[answer.status] = (tally.statuses[answer.status] ?? 0) + 1;
        if (answer.status >= 500) {
          tally.serverErrors += 1;
          if (tally.failures.length < 10) tally.failures.push(`${kind}: ${answer.status} ${answer.body.toString().slice(0, 200)}`);
        }
      } catch (error) {
        tally.droppedConnections += 1;
        if (tally.failures.length < 10) tally.failures.push(`${kind}: ${(error as Error).message}`);
      }
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, (_, index) => client(index)));
  } finally {
    agent.destroy();
  }
  tally.latenciesMs.sort((a, b) => a - b);
  return tally;
}
