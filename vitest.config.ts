import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    // Each test file's database is a copy of one made here once per run.
    globalSetup: ['test/support/database-templates.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: {
      LOG_LEVEL: 'SILENT',
      // Every handler's data is parsed with its route's declared `response` (shared/http/response-check.ts).
      VALIDATE_RESPONSES: '1',
      PASSWORD_SCRYPT_COST: '1024',
      // Limits on, as by default, but far above what a test file sends (see test/support/test-app.ts).
      RATE_LIMIT_CONSOLE_PER_MINUTE: '1000000',
      RATE_LIMIT_CONSOLE_WRITES_PER_MINUTE: '1000000',
      RATE_LIMIT_LOGIN_PER_HOUR: '1000000',
      RATE_LIMIT_AUTHENTICATED_PER_HOUR: '1000000',
      RATE_LIMIT_ANONYMOUS_PER_HOUR: '1000000',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000',
    },
  },
});
