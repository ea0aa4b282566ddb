// The server side of the storage-transfer benchmark, run as a child process so its memory is its
// own: the platform booted on a fresh bench database with the dev server in front, a site, an app
// and a bucket made through the API, and a sampler of the process's resident set size. Beside it, a
// bare node:http server that only pipes request bodies to files and files to responses: the floor
// of HTTP on this machine. Talks to the parent over IPC: `ready` with the addresses, then `mark`
// (start a transfer's peak) and `peak`.
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { bootLocal } from '#infra/local/boot.ts';
import { startDevServer } from '#infra/local/dev-server.ts';
import { BENCH_ADMIN, benchConfig, openBenchDatabase } from './bench-database.ts';

export interface ServerReady {
  type: 'ready';
  url: string;
  /** Headers every request carries: the admin's bearer token and the site. */
  headers: Record<string, string>;
  /** `/api/apps/<app>/storage/buckets/<bucket>/objects/` */
  objects: string;
  database: string;
  pid: number;
  /** The bare server: PUT and GET `/<name>`. */
  bareUrl: string;
  /** Resident set size when ready, in bytes. */
  rss: number;
}

export type ServerRequest = { type: 'mark' } | { type: 'peak' } | { type: 'stop' };
/** `peak`: the highest RSS since the mark; `highest`: since the server was ready. */
export type ServerAnswer = { type: 'marked'; rss: number } | { type: 'peak'; rss: number; peak: number; highest: number };

const SAMPLE_MS = 5;

type Answer = Record<string, any>; // `any`: bodies are read field by field

async function call(url: string, method: string, headers: Record<string, string>, body: unknown): Promise<Answer> {
  const response = await fetch(url, { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await response.json()) as Answer;
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

async function main(): Promise<void> {
  const database = await openBenchDatabase(10);
  const { runtime } = await bootLocal(benchConfig(database.dataDir), { db: database.db });
  const server = await startDevServer(0);
  const token = (await call(`${server.url}/api/auth/jwt/token/`, 'POST', {}, BENCH_ADMIN)).access as string;
  const auth = { authorization: `Bearer ${token}` };
  const org = await call(`${server.url}/api/cloud/organizations/`, 'POST', auth, { name: 'Bench Storage' });
  const site = await call(`${server.url}/api/cloud/organizations/${org.data.slug}/sites/`, 'POST', auth, { name: 'Bench Storage' });
  const headers = { ...auth, 'x-tenant': site.slug as string };
  const app = await call(`${server.url}/api/apps/`, 'POST', headers, { name: 'Bench Files' });
  const bucket = await call(`${server.url}/api/apps/${app.slug}/storage/buckets/`, 'POST', headers, {
    name: 'Transfers',
    app_category: 'attachments',
    file_size_limit: 200 * 1024 * 1024,
  });

  const chunks = { highWaterMark: 1024 * 1024 };
  const bare = createServer((request, response) => {
    const file = path.join(database.dataDir, `bare-${(request.url ?? '').replace(/\W/g, '_')}`);
    const done = (status: number) => () => {
      if (!response.headersSent) response.writeHead(status);
      response.end();
    };
    if (request.method === 'PUT') {
      void pipeline(request, createWriteStream(file, chunks)).then(done(201), done(500));
      return;
    }
    void stat(file)
      .then(({ size }) => {
        response.writeHead(200, { 'content-length': size });
        return pipeline(createReadStream(file, { highWaterMark: 4 * 1024 * 1024 }), response);
      })
      .catch(done(500));
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));

  const readyRss = process.memoryUsage.rss();
  let peak = readyRss;
  let highest = readyRss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
    highest = Math.max(highest, peak);
  }, SAMPLE_MS);
  process.on('message', (message: ServerRequest) => {
    if (message.type === 'mark') {
      peak = process.memoryUsage.rss();
      process.send!({ type: 'marked', rss: peak } satisfies ServerAnswer);
    } else if (message.type === 'peak') {
      const rss = process.memoryUsage.rss();
      highest = Math.max(highest, rss);
      process.send!({ type: 'peak', rss, peak: Math.max(peak, rss), highest } satisfies ServerAnswer);
    } else {
      clearInterval(sampler);
      bare.close();
      void server
        .close()
        .then(() => runtime.db.close())
        .then(() => database.dispose())
        .finally(() => process.exit(0));
    }
  });
  process.send!({
    type: 'ready',
    url: server.url,
    headers,
    objects: `/api/apps/${app.slug}/storage/buckets/${bucket.slug}/objects/`,
    database: database.label,
    pid: process.pid,
    bareUrl: `http://127.0.0.1:${(bare.address() as AddressInfo).port}`,
    rss: readyRss,
  } satisfies ServerReady);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
