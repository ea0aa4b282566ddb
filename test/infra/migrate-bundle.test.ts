// Bundles the migrate function exactly as `cdk synth` does and runs the bundle: it must find the
// platform migrations beside itself and talk to Secrets Manager (a fake one on loopback).
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTesseraApp } from '#infra/aws/tessera-app.ts';
import { SECRETS_KEY_PLACEHOLDER, SIGNING_KEY_PLACEHOLDER } from '#infra/aws/platform-secrets.ts';
import { tesseraFunctions } from './synth.ts';

const secrets = new Map<string, string>();
const calls: string[] = [];

function fakeSecretsManager(): Promise<Server> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const operation = String(request.headers['x-amz-target']).split('.')[1];
      const input = JSON.parse(body) as { SecretId: string; SecretString?: string };
      calls.push(`${operation} ${input.SecretId}`);
      response.setHeader('content-type', 'application/x-amz-json-1.1');
      if (operation === 'PutSecretValue') secrets.set(input.SecretId, input.SecretString!);
      response.end(JSON.stringify({ ARN: input.SecretId, Name: input.SecretId, SecretString: secrets.get(input.SecretId) }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('migrate function bundle', () => {
  let workDir: string;
  let bundleDir: string;
  let server: Server;
  const savedEnv = { ...process.env };

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'tessera-migrate-bundle-'));
    const app = new App({ outdir: path.join(workDir, 'cdk.out'), context: { 'aws:cdk:bundling-stacks': ['TesseraData'] } });
    const { data } = buildTesseraApp(app);
    app.synth();
    const [migrate] = Object.values(tesseraFunctions(Template.fromStack(data)));
    const s3Key = (migrate!.Properties!.Code as { S3Key: string }).S3Key;
    bundleDir = path.join(workDir, 'cdk.out', `asset.${s3Key.replace(/\.zip$/, '')}`);
    server = await fakeSecretsManager();
  }, 60_000);

  afterAll(async () => {
    process.env = savedEnv;
    server?.close();
    await rm(workDir, { recursive: true, force: true });
  });

  it('carries the platform migrations beside index.mjs', async () => {
    const files = await readdir(bundleDir);
    expect(files).toContain('index.mjs');
    expect(files).toContain('migrations');
    expect(await readdir(path.join(bundleDir, 'migrations', 'meta'))).toContain('_journal.json');
  });

  // Bundles, migrates a fresh database and hashes the admin password: about 20 s alone.
  it('fills the signing key, migrates, seeds the password word lists and creates the superuser when run', async () => {
    // Prepare
    secrets.set('signing-key', SIGNING_KEY_PLACEHOLDER);
    secrets.set('secrets-key', SECRETS_KEY_PLACEHOLDER);
    secrets.set('admin-password', 'bundle-test-password');
    const dataDir = path.join(workDir, 'data');
    await mkdir(dataDir, { recursive: true });
    // The bundle must open its own PGlite, not the server a PostgreSQL test run points at.
    delete process.env.DATABASE_URL;
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      JWT_SIGNING_KEY_SECRET_ARN: 'signing-key',
      SECRETS_ENCRYPTION_KEY_SECRET_ARN: 'secrets-key',
      ADMIN_PASSWORD_SECRET_ARN: 'admin-password',
      DATA_DIR: dataDir, // no database settings: the bundle opens PGlite here
      PASSWORD_SCRYPT_COST: '1024',
      LOG_LEVEL: 'SILENT',
    });
    const { handler } = (await import(pathToFileURL(path.join(bundleDir, 'index.mjs')).href)) as {
      handler: () => Promise<unknown>;
    };
    // Act
    const result = await handler();
    // Assess
    expect(result).toEqual({
      signingKey: 'generated',
      secretsKey: 'generated',
      // The migrate bundle carries zxcvbn's lists; the endpoint bundles read them from the database.
      passwordWords: { seeded: true, words: expect.any(Number) as number },
      superuser: { username: 'admin', created: true },
    });
    expect((result as { passwordWords: { words: number } }).passwordWords.words).toBeGreaterThan(200_000);
    expect(JSON.parse(secrets.get('signing-key')!)).toMatchObject({ kty: 'OKP', crv: 'Ed25519', d: expect.any(String) });
    expect(calls).toEqual([
      'GetSecretValue signing-key',
      'PutSecretValue signing-key',
      'GetSecretValue secrets-key',
      'PutSecretValue secrets-key',
      'GetSecretValue admin-password',
    ]);
  }, 90_000);
});
