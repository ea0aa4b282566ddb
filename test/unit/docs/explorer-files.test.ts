// The explorer pages load only files their own route serves, and every vendor file the deployed
// bundle must carry exists in node_modules under the name the page asks for.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXPLORER_FILES, EXPLORER_VENDOR_FILES, REDOC_PAGE, SWAGGER_PAGE } from '#functions/docs/explorer-files.ts';

describe('the explorer files', () => {
  it.each([
    ['docs', SWAGGER_PAGE],
    ['redoc', REDOC_PAGE],
  ] as const)('the %s page loads only its own files, from this host', (page, html) => {
    const loaded = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(loaded.length).toBeGreaterThan(0);
    for (const url of loaded) expect(Object.keys(EXPLORER_FILES[page]).map((name) => `/api/${page}/${name}`)).toContain(url);
    expect(html).not.toMatch(/<script>|\son[a-z]+=/); // no inline script or handler: the CSP allows none
  });

  it('copies every vendor file, which exists, under a name of its own', () => {
    expect(EXPLORER_VENDOR_FILES.length).toBe(3);
    for (const { from } of EXPLORER_VENDOR_FILES) expect(existsSync(from), from).toBe(true);
    expect(new Set(EXPLORER_VENDOR_FILES.map(({ to }) => to)).size).toBe(EXPLORER_VENDOR_FILES.length);
  });
});
