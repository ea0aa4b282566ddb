// A hostile client against the dev server's admission (infra/local/dev-server.ts): signed in, it
// opens more uploads than the server works on at once and trickles nothing more after the first
// bytes. Each upload's handler holds a place while it waits for the body, up to its 29 s; the
// server's other requests must still be answered meanwhile (this file's time limit is under that),
// and once the client goes the uploads leave no object behind.
import { request as httpRequest, type ClientRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOAD_ADMIN, startLoadServer, type LoadServer } from '#test/support/mixed-load.ts';

/** More than the 64 places the dev server has for each kind of request. */
const STALLED_UPLOADS = 80;

describe('uploads that stall do not hold up the rest', () => {
  let load: LoadServer | undefined;
  let server: LoadServer['server'];
  let fixture: LoadServer['fixture'];
  let token: string;

  beforeAll(async () => {
    load = await startLoadServer('stall');
    ({ server, fixture } = load);
    const login = await fetch(`${server.url}/api/auth/jwt/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(LOAD_ADMIN),
    });
    token = ((await login.json()) as { access: string }).access;
  }, 150_000);
  afterAll(async () => {
    await load?.close();
  });

  it('answers lists and record writes while 80 uploads wait for bytes that never come', { timeout: 20_000 }, async () => {
    // Prepare: uploads that announce 1 MB and send 16 bytes
    const stalled: ClientRequest[] = [];
    const url = new URL(server.url);
    for (let index = 0; index < STALLED_UPLOADS; index += 1) {
      const upload = httpRequest({
        host: url.hostname,
        port: url.port,
        method: 'PUT',
        path: `${fixture.objects}stalled/${index}.bin`,
        headers: {
          authorization: `Bearer ${token}`,
          ...fixture.tenant,
          'content-type': 'application/octet-stream',
          'content-length': String(1024 * 1024),
        },
      });
      upload.on('error', () => undefined);
      upload.write(Buffer.alloc(16));
      stalled.push(upload);
    }
    const headers = { authorization: `Bearer ${token}`, ...fixture.tenant };
    try {
      // Act
      const list = await fetch(`${server.url}${fixture.records}?page_size=5`, { headers });
      const users = await fetch(`${server.url}/api/cloud/users/?page_size=5`, { headers: { authorization: `Bearer ${token}` } });
      const write = await fetch(`${server.url}${fixture.records}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 999_999_001, title: 'while uploads stall', amount: 1 }),
      });
      // Assess
      expect(list.status).toBe(200);
      expect(users.status).toBe(200);
      expect(write.status).toBe(201);
    } finally {
      for (const upload of stalled) upload.destroy();
    }
    // The broken-off uploads stored nothing.
    const objects = await fetch(`${server.url}${fixture.objects}stalled/0.bin`, { headers });
    expect(objects.status).toBe(404);
  });
});
