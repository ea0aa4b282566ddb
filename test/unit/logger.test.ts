import { describe, expect, it } from 'vitest';
import { describeError, redact } from '#shared/logger.ts';

describe('log redaction', () => {
  it('replaces credentials at any depth and keeps the rest', () => {
    const redacted = redact({
      user: 'ann',
      password: 'hunter2',
      headers: { Authorization: 'Bearer abc', accept: 'json' },
      nested: [{ refresh_token: 'r' }, { client_secret: 's', note: 'ok' }],
    });
    expect(redacted).toEqual({
      user: 'ann',
      password: '[REDACTED]',
      headers: { Authorization: '[REDACTED]', accept: 'json' },
      nested: [{ refresh_token: '[REDACTED]' }, { client_secret: '[REDACTED]', note: 'ok' }],
    });
  });

  it('describes a failed query without its bound values', () => {
    const driverError = Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
    const wrapped = Object.assign(new Error('Failed query: insert into users values ($1)\nparams: scrypt$secret-hash'), {
      name: 'DrizzleQueryError',
      params: ['scrypt$secret-hash'],
      cause: driverError,
    });
    wrapped.name = 'DrizzleQueryError';
    const described = JSON.stringify(describeError(wrapped));
    expect(described).not.toContain('secret-hash');
    expect(described).toContain('23505');
  });
});
