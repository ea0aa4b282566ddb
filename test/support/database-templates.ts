// vitest's globalSetup (vitest.config.ts): the database every test file starts from is made once
// per run here, and each file's own database is copied from it. On PGlite a fresh cluster costs an
// initdb (5–10 s on two busy cores) where loading a dump of one takes about 1 s; on PostgreSQL
// CREATE DATABASE from a migrated template takes about 0.13 s where migrating anew takes 0.6 s.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { connectPglite, connectPostgres } from '#shared/db/database.ts';
import { prepareDatabase } from '#shared/db/open-database.ts';

/** What test-database.ts copies from: dump files on PGlite, a template database's name on PostgreSQL. */
export interface DatabaseTemplates {
  pglite?: { empty: string; migrated: string };
  postgres?: { empty: string; migrated: string };
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseTemplates: DatabaseTemplates;
  }
}

export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function pgliteTemplates(): Promise<{ templates: DatabaseTemplates; dispose(): Promise<void> }> {
  const { PGlite } = await import('@electric-sql/pglite');
  const folder = await mkdtemp(path.join(tmpdir(), 'tessera-templates-'));
  const dump = async (client: InstanceType<typeof PGlite>, name: string) => {
    const file = path.join(folder, `${name}.tar`);
    await writeFile(file, Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer()));
    return file;
  };
  const empty = await PGlite.create('memory://');
  const emptyDump = await dump(empty, 'empty');
  await empty.close();
  // Migrated through the platform's own path, then dumped from the folder it was written to.
  const migratedDir = path.join(folder, 'migrated');
  const db = await connectPglite(migratedDir);
  await prepareDatabase(db);
  await db.close();
  const migrated = await PGlite.create(migratedDir);
  const migratedDump = await dump(migrated, 'migrated');
  await migrated.close();
  return {
    templates: { pglite: { empty: emptyDump, migrated: migratedDump } },
    dispose: () => rm(folder, { recursive: true, force: true }),
  };
}

async function postgresTemplates(serverUrl: string): Promise<{ templates: DatabaseTemplates; dispose(): Promise<void> }> {
  const suffix = randomBytes(6).toString('hex');
  const names = { empty: `tessera_tmpl_empty_${suffix}`, migrated: `tessera_tmpl_${suffix}` };
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database "${names.empty}"`);
  await admin.unsafe(`create database "${names.migrated}"`);
  const db = await connectPostgres({ url: withDatabaseName(serverUrl, names.migrated), poolMax: 1 });
  await prepareDatabase(db);
  await db.close();
  return {
    templates: { postgres: names },
    dispose: async () => {
      for (const name of Object.values(names)) await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const serverUrl = process.env.DATABASE_URL;
  const made = serverUrl === undefined ? await pgliteTemplates() : await postgresTemplates(serverUrl);
  project.provide('databaseTemplates', made.templates);
  return made.dispose;
}
