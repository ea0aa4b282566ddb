import { describe, expect, it } from 'vitest';
import { slugFrom, uniqueSlug } from '#shared/text/slugs.ts';

describe('slugs', () => {
  it('lowercases, turns spaces into hyphens and drops special characters', async () => {
    expect(await slugFrom('  Acme Corp. (EU) & Friends! ')).toBe('acme-corp-eu-and-friends');
    expect(await slugFrom('Ünïcödé Sité')).toBe('unicode-site');
  });

  it('cuts long names without a trailing hyphen', async () => {
    expect(await slugFrom(`${'a'.repeat(49)} b`, 50)).toBe('a'.repeat(49));
  });

  it('appends -2, -3 on collision and skips reserved slugs', async () => {
    expect(await uniqueSlug('acme', async () => [])).toBe('acme');
    expect(await uniqueSlug('acme', async () => ['acme', 'acme-2'])).toBe('acme-3');
    expect(await uniqueSlug('config', async () => [], { reserved: new Set(['config']) })).toBe('config-2');
  });
});
