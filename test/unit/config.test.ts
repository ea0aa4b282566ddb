import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '#shared/config.ts';

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8000,
      dataDir: '.data',
      database: { url: undefined, poolMax: 10, statementTimeoutMs: 25_000 },
      admin: { username: 'admin', password: undefined },
      platformDomain: 'localhost',
      tokens: { accessTtlSeconds: 900, refreshTtlSeconds: 604800, issuer: 'tessera' },
      passwordScryptCost: 32768,
    });
  });

  it('reads comma-separated CORS origins and treats empty variables as unset', () => {
    const config = loadConfig({ CORS_ORIGINS: 'https://a.example, https://b.example', DATABASE_URL: '' });
    expect(config.corsOrigins).toEqual(['https://a.example', 'https://b.example']);
    expect(config.database.url).toBeUndefined();
  });

  it('builds public API URLs from the site slug and PLATFORM_DOMAIN unless PUBLIC_API_URL says otherwise', () => {
    expect(loadConfig({ PORT: '9000' }).publicApiUrl).toBe('http://{site}.localhost:9000');
    expect(loadConfig({ PLATFORM_DOMAIN: 'example.com', AWS_LAMBDA_FUNCTION_NAME: 'storage' }).publicApiUrl).toBe(
      'https://{site}.example.com',
    );
    expect(loadConfig({ PUBLIC_API_URL: 'https://api.example.com/v1/' }).publicApiUrl).toBe('https://api.example.com/v1');
    expect(() => loadConfig({ PUBLIC_API_URL: 'javascript:alert(1)' })).toThrow(/PUBLIC_API_URL/);
    expect(() => loadConfig({ PUBLIC_API_URL: 'not a url' })).toThrow(/PUBLIC_API_URL/);
  });

  it('runs the storage maintenance sweep every 5 minutes with a 15-minute grace, 100,000 keys a run, unless told otherwise', () => {
    expect(loadConfig({}).maintenance).toEqual({ intervalSeconds: 300, graceSeconds: 900, orphanKeysPerRun: 100_000 });
    expect(
      loadConfig({ MAINTENANCE_INTERVAL_SECONDS: '60', MAINTENANCE_GRACE_SECONDS: '0', MAINTENANCE_ORPHAN_KEYS_PER_RUN: '500' })
        .maintenance,
    ).toEqual({
      intervalSeconds: 60,
      graceSeconds: 0,
      orphanKeysPerRun: 500,
    });
    expect(() => loadConfig({ MAINTENANCE_INTERVAL_SECONDS: '1' })).toThrow(/MAINTENANCE_INTERVAL_SECONDS/);
    expect(() => loadConfig({ MAINTENANCE_GRACE_SECONDS: '-5' })).toThrow(/MAINTENANCE_GRACE_SECONDS/);
    expect(() => loadConfig({ MAINTENANCE_ORPHAN_KEYS_PER_RUN: '0' })).toThrow(/MAINTENANCE_ORPHAN_KEYS_PER_RUN/);
  });

  it('names every invalid variable at once', () => {
    let caught: unknown;
    try {
      loadConfig({ PORT: 'eighty', PASSWORD_SCRYPT_COST: '1000', ADMIN_EMAIL: 'nope' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.join('\n');
    expect(problems).toContain('PORT');
    expect(problems).toContain('PASSWORD_SCRYPT_COST');
    expect(problems).toContain('ADMIN_EMAIL');
  });

  describe('object store', () => {
    it('keeps objects under DATA_DIR/objects by default, with no direct-transfer limit outside Lambda', () => {
      const config = loadConfig({ DATA_DIR: '/srv/tessera' });
      expect(config.objectStore).toEqual({ backend: 'filesystem', root: '/srv/tessera/objects' });
      expect(config.transfers).toEqual({ presignedUrlTtlSeconds: 900, directMaxBytes: undefined });
    });

    it('reads the S3 settings, falling back to the Lambda region', () => {
      const config = loadConfig({
        OBJECT_STORE: 's3',
        S3_BUCKET: 'tessera-objects',
        S3_ENDPOINT: 'http://127.0.0.1:9000',
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID: 'key',
        S3_SECRET_ACCESS_KEY: 'secret',
        AWS_REGION: 'eu-central-1',
      });
      expect(config.objectStore).toEqual({
        backend: 's3',
        bucket: 'tessera-objects',
        region: 'eu-central-1',
        endpoint: 'http://127.0.0.1:9000',
        forcePathStyle: true,
        credentials: { accessKeyId: 'key', secretAccessKey: 'secret' },
      });
    });

    it('limits direct transfers to 4 MiB inside Lambda unless told otherwise', () => {
      expect(loadConfig({ AWS_LAMBDA_FUNCTION_NAME: 'tessera-storage' }).transfers.directMaxBytes).toBe(4 * 1024 * 1024);
      expect(loadConfig({ AWS_LAMBDA_FUNCTION_NAME: 'tessera-storage', DIRECT_TRANSFER_MAX_BYTES: '1000' }).transfers.directMaxBytes).toBe(
        1000,
      );
    });

    it.each([
      [{ OBJECT_STORE: 's3' }, 'S3_BUCKET: required when OBJECT_STORE is s3'],
      [
        { OBJECT_STORE: 's3', S3_BUCKET: 'tessera-objects', S3_ACCESS_KEY_ID: 'key' },
        'S3_SECRET_ACCESS_KEY: required with the other S3 key variable',
      ],
      [{ OBJECT_STORE: 'azure' }, 'OBJECT_STORE'],
      [{ OBJECT_STORE: 's3', S3_BUCKET: 'Not_A_Bucket' }, 'S3_BUCKET: must be an S3 bucket name'],
      [{ PRESIGNED_URL_TTL_SECONDS: '5' }, 'PRESIGNED_URL_TTL_SECONDS'],
    ])('stops start-up on %j, naming the variable', (env, problem) => {
      expect(() => loadConfig(env)).toThrow(problem);
    });
  });
});
