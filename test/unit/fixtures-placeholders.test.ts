// The `{{...}}` placeholders of event fixtures, filled from a stand-in for the local database.
import { describe, expect, it } from 'vitest';
import { FixtureError } from '#infra/local/event-fixtures.ts';
import { fillPlaceholders, type PlaceholderSource } from '#infra/local/fixture-placeholders.ts';

const source: PlaceholderSource = {
  accessToken: async (username) => `access-of-${username}`,
  refreshToken: async (username) => `refresh-of-${username}`,
  password: async () => 'pa"ss\\word',
};

describe('fixture placeholders', () => {
  it('puts tokens of the named user into headers and bodies', async () => {
    const event = {
      headers: { authorization: 'Bearer {{token:alice}}' },
      body: '{"refresh":"{{refresh:alice}}"}',
    };

    const filled = await fillPlaceholders(event, source);

    expect(filled.headers.authorization).toBe('Bearer access-of-alice');
    expect(JSON.parse(filled.body)).toEqual({ refresh: 'refresh-of-alice' });
  });

  it('escapes values placed inside a JSON body', async () => {
    const filled = await fillPlaceholders({ body: '{"username":"admin","password":"{{password:admin}}"}' }, source);

    expect(JSON.parse(filled.body)).toEqual({ username: 'admin', password: 'pa"ss\\word' });
  });

  it('gives one value to every occurrence of a placeholder within a fixture', async () => {
    const filled = await fillPlaceholders({ body: '{"username":"u-{{unique}}","email":"u-{{unique}}@example.com"}' }, source);

    const body = JSON.parse(filled.body) as { username: string; email: string };
    expect(body.username).toMatch(/^u-[0-9a-f]{8}$/);
    expect(body.email).toBe(`${body.username}@example.com`);
  });

  it('draws new random values on every fill', async () => {
    const event = { requestId: '{{uuid}}', suffix: '{{unique}}' };

    const [first, second] = await Promise.all([fillPlaceholders(event, source), fillPlaceholders(event, source)]);

    expect(first.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first.requestId).not.toBe(second.requestId);
    expect(first.suffix).not.toBe(second.suffix);
  });

  it('leaves the fixture itself unchanged', async () => {
    const event = { headers: { authorization: 'Bearer {{token:alice}}' } };

    await fillPlaceholders(event, source);

    expect(event.headers.authorization).toBe('Bearer {{token:alice}}');
  });

  it('rejects an unknown placeholder and names the known ones', async () => {
    const failure = fillPlaceholders({ body: '{{tokne:alice}}' }, source);

    await expect(failure).rejects.toBeInstanceOf(FixtureError);
    await expect(failure).rejects.toThrow(/\{\{tokne:alice\}\}[\s\S]*\{\{token:<username>\}\}/);
  });

  it('rejects a token placeholder without a username', async () => {
    await expect(fillPlaceholders({ header: 'Bearer {{token}}' }, source)).rejects.toThrow(/needs a username/);
  });
});
