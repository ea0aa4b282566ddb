import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '#shared/config.ts';

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8000,
      dataDir: '.data',
      database: { url: undefined, poolMax: 10 },
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
});
