// Two claims of one host in different tables at the same instant (a site's domain, a frontend
// worker's host, a new site's API host): the writers serialise on the host, so exactly one gets it
// and the other gets the answer for a taken host (400 with the field error). The race is real on
// PostgreSQL, where a held table lock also stops both claims at their writes to show the checks
// cannot both pass; PGlite runs one statement at a time, so there the claims only interleave.
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipArchive } from '#test/support/archives.ts';
import { createHostingSite, createWorker, type HostingSite } from '#test/support/hosting.ts';
import { testDriver } from '#test/support/test-database.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const TAKEN_SUBDOMAIN = { code: 'VALIDATION_ERROR', errors: { subdomain_input: ['This subdomain is already taken.'] } };
const TAKEN_DOMAIN = { code: 'VALIDATION_ERROR', errors: { domain: ['This domain is already registered.'] } };
const ROUNDS = 10;

const build = { filename: 'build.zip', data: zipArchive([{ name: 'index.html', data: '<p>race</p>' }]) };

/** Whether `count` sessions of this database wait on a lock within ten seconds. */
async function waitForLockWaiters(session: postgres.Sql, count: number): Promise<boolean> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const [row] = await session<{ waiting: number }[]>`
      select count(*)::int as waiting from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where not l.granted and a.datname = current_database()`;
    if (row!.waiting >= count) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

describe(`claims of one host racing across tables on ${testDriver}`, () => {
  let app: TestApp;
  let admin: string;
  let workerSite: HostingSite;
  let domainSite: HostingSite;

  /** Every holder of the host: domain rows, worker claims and site API hosts. */
  const holders = async (host: string) =>
    app.runtime.db.rows<{ kind: string }>(sql`
      select 'domain' as kind from platform.domains where domain = ${host}
      union all select 'worker' from platform.hosted_domains where full_domain = ${host}
      union all select 'site' from platform.sites where slug || '.localhost' = ${host}`);

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    workerSite = await createHostingSite(app, admin, 'Race Workers');
    domainSite = await createHostingSite(app, admin, 'Race Domains');
  });
  afterAll(async () => {
    await app?.close();
  });

  /** `www.<domain>` as an external worker's host. */
  const claimAsWorker = (domain: string) =>
    createWorker(app, admin, workerSite, { name: `Worker on ${domain}`, subdomain_input: 'www', is_internal: 'false', domain }, build);
  const claimAsDomain = (host: string) =>
    app.request('POST', `/api/cloud/sites/${domainSite.slug}/domains/`, { token: admin, body: { domain: host } });

  it('gives a host to exactly one of a domain and a worker that claim it at the same instant', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      // Prepare
      const host = `www.race-${round}.example`;

      // Act: the two requests leave together, in turn one or the other first.
      const [worker, domain] =
        round % 2 === 0
          ? await Promise.all([claimAsWorker(`race-${round}.example`), claimAsDomain(host)])
          : await Promise.all([claimAsDomain(host), claimAsWorker(`race-${round}.example`)]).then(
              ([second, first]) => [first, second] as const,
            );

      // Assess
      expect([worker.status, domain.status].sort(), host).toEqual([201, 400]);
      if (worker.status === 400) expect(worker.json, host).toMatchObject(TAKEN_SUBDOMAIN);
      if (domain.status === 400) expect(domain.body, host).toMatchObject(TAKEN_DOMAIN);
      expect(await holders(host), host).toEqual([{ kind: worker.status === 201 ? 'worker' : 'domain' }]);
    }
  });

  it.skipIf(testDriver !== 'postgres')(
    'gives a host to exactly one of a domain and a worker that both reach their write before either commits',
    async () => {
      // Prepare: another session holds back writes to both tables, so each claim stops at its write
      // (without the host lock, after a check that saw the host free).
      const host = 'www.held.example';
      const gate = postgres(app.database.url!, { max: 2, onnotice: () => undefined });
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked: () => void = () => undefined;
      const lockTaken = new Promise<void>((resolve) => (locked = resolve));
      const holder = gate.begin(async (tx) => {
        await tx.unsafe('lock table platform.domains, platform.hosted_domains in exclusive mode');
        locked();
        await released;
      });
      await lockTaken;

      // Act: both claims sent, both seen waiting on a lock, then the writes let through.
      const answers = Promise.all([claimAsWorker('held.example'), claimAsDomain(host)]);
      let waiting: boolean;
      try {
        waiting = await waitForLockWaiters(gate, 2);
      } finally {
        release();
        await holder;
        await gate.end({ timeout: 5 });
      }
      const [worker, domain] = await answers;

      // Assess
      expect(waiting).toBe(true);
      expect([worker.status, domain.status].sort()).toEqual([201, 400]);
      if (worker.status === 400) expect(worker.json).toMatchObject(TAKEN_SUBDOMAIN);
      if (domain.status === 400) expect(domain.body).toMatchObject(TAKEN_DOMAIN);
      expect(await holders(host)).toEqual([{ kind: worker.status === 201 ? 'worker' : 'domain' }]);
    },
  );

  it("never lets a new site's API host and a worker share a host claimed at the same instant", async () => {
    const org = await app.request('POST', '/api/cloud/organizations/', { token: admin, body: { name: 'Race Sites org' } });
    for (let round = 0; round < ROUNDS; round += 1) {
      // Prepare
      const name = `Racing ${round}`;
      const host = `racing-${round}.localhost`;
      const claimAsWorker = () => createWorker(app, admin, workerSite, { name, subdomain_input: `racing-${round}` }, build);
      const claimAsSite = () =>
        app.request('POST', `/api/cloud/organizations/${org.body.data.slug}/sites/`, { token: admin, body: { name } });

      // Act
      const [worker, site] = await Promise.all([claimAsWorker(), claimAsSite()]);

      // Assess: the site always gets made, on its host when the worker lost and on the next slug when it won.
      expect(site.status, host).toBe(201);
      if (worker.status === 201) {
        expect(site.body.slug, host).toBe(`racing-${round}-2`);
      } else {
        expect(worker.status, host).toBe(400);
        expect(worker.json, host).toMatchObject(TAKEN_SUBDOMAIN);
        expect(site.body.slug, host).toBe(`racing-${round}`);
      }
      const kinds = (await holders(host)).map((holder) => holder.kind).sort();
      expect(kinds, host).toEqual(worker.status === 201 ? ['worker'] : ['domain', 'site']);
    }
  });
});
