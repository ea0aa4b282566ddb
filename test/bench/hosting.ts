// Issue 19: requests/s of a 200 KB asset of an active build, served by the dev server from the
// worker's subdomain, against a bare node:http static server that streams the same file from disk
// (stat, then a read stream piped to the socket). Same client, connections and duration.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { sql } from 'drizzle-orm';
import { bootLocal } from '#infra/local/boot.ts';
import { startDevServer } from '#infra/local/dev-server.ts';
import { buildFileKey } from '#shared/hosting/build-keys.ts';
import { tarArchive } from '#test/support/archives.ts';
import { BENCH_ADMIN, benchConfig, openBenchDatabase } from './bench-database.ts';
import { comparePlatformToBaseline } from './compare-servers.ts';
import { heading, note } from './report.ts';
import { benchSettings } from './settings.ts';

const ASSET = 'assets/app.5e1f7c2a.js';
const ASSET_BYTES = 200 * 1024;
const SUBDOMAIN = 'bench-web';
const TARGET_RATIO = 0.8;

type Body = any; // `any`: set-up answers are read field by field

async function json(url: string, init: RequestInit): Promise<{ status: number; body: Body }> {
  const response = await fetch(url, init);
  return { status: response.status, body: await response.json() };
}

/** A static file server with nothing but what serving a file takes: stat, headers, a piped read stream. */
async function startBareStaticServer(file: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((_request, response) => {
    void (async () => {
      const info = await stat(file);
      response.writeHead(200, {
        'Content-Type': 'text/javascript; charset=utf-8',
        'Content-Length': String(info.size),
        ETag: `"${info.size}-${info.mtimeMs}"`,
      });
      await pipeline(createReadStream(file), response);
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function benchHosting(): Promise<void> {
  const settings = benchSettings();
  heading(`hosting: GET /${ASSET} (${ASSET_BYTES / 1024} KB) from ${SUBDOMAIN}.localhost, dev server vs bare node:http static server`);
  const database = await openBenchDatabase(10);
  try {
    await mkdir(database.dataDir, { recursive: true });
    const config = benchConfig(database.dataDir);
    await bootLocal(config, { db: database.db });
    const platform = await startDevServer(0);
    const login = await json(`${platform.url}/api/auth/jwt/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BENCH_ADMIN),
    });
    const auth = { authorization: `Bearer ${login.body.access}` };
    const org = await json(`${platform.url}/api/cloud/organizations/`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench org' }),
    });
    const site = await json(`${platform.url}/api/cloud/organizations/${org.body.data.slug}/sites/`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench site' }),
    });
    // Random bytes as hex: text that does not compress, like minified code.
    const asset = randomBytes(ASSET_BYTES / 2).toString('hex');
    const archive = await tarArchive(
      [
        { name: 'index.html', data: '<!doctype html><script src="/assets/app.5e1f7c2a.js"></script>' },
        { name: ASSET, data: asset },
      ],
      { gzip: true },
    );
    const form = new FormData();
    form.set('name', 'Bench');
    form.set('subdomain_input', SUBDOMAIN);
    form.set('file', new Blob([archive]), 'build.tgz');
    const worker = await json(`${platform.url}/api/frontend_workers/`, {
      method: 'POST',
      headers: { ...auth, 'x-tenant': site.body.slug },
      body: form,
    });
    if (worker.status !== 201) throw new Error(`worker: ${worker.status} ${JSON.stringify(worker.body)}`);
    const [claim] = await database.db.rows<{ build_prefix: string }>(
      sql`select build_prefix from platform.hosted_domains where full_domain = ${`${SUBDOMAIN}.localhost`}`,
    );
    if (config.hosting.store.backend !== 'filesystem') throw new Error('the benchmark reads the build from the filesystem store');
    const file = path.join(config.hosting.store.root, ...buildFileKey(claim!.build_prefix, ASSET.split('/')).split('/'));
    const baseline = await startBareStaticServer(file);
    try {
      const host = `${SUBDOMAIN}.localhost:${new URL(platform.url).port}`;
      const served = await fetch(`${platform.url}/${ASSET}`, { headers: { host } }).catch(() => undefined);
      // fetch may not send our Host; check through node:http instead when it did not.
      note(`database: ${database.label}; asset ${ASSET_BYTES} bytes in build ${claim!.build_prefix}`);
      if (served !== undefined && served.status === 200 && (await served.text()) !== asset)
        throw new Error('the platform served other bytes');
      await comparePlatformToBaseline(
        [
          { name: 'platform (dev server, subdomain)', url: `${platform.url}/${ASSET}` },
          { name: 'baseline (node:http static)', url: `${baseline.url}/${ASSET}` },
        ],
        { host },
        settings,
        TARGET_RATIO,
      );
    } finally {
      await baseline.close();
      await platform.close();
    }
  } finally {
    await database.dispose();
  }
}
