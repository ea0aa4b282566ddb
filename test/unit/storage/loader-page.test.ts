import { describe, expect, it } from 'vitest';
import { loaderLocation, loaderPage } from '#functions/storage/documents/loader-page.ts';

describe('document loader page', () => {
  it('runs only its own nonced script under a strict policy and posts the fragment ticket to the grant path', () => {
    const page = loaderPage('/api/storage/document-loader/grant/');
    const html = (page.body as Buffer).toString('utf8');
    const policy = page.headers['Content-Security-Policy']!;
    const nonce = /script-src 'nonce-([^']+)'/.exec(policy)?.[1];

    expect(page.status).toBe(200);
    expect(page.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("connect-src 'self'");
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).toContain('"/api/storage/document-loader/grant/"');
    expect(html).toContain('location.hash');
    expect(page.headers['Referrer-Policy']).toBe('no-referrer');
  });

  it('uses a fresh nonce for every page', () => {
    const first = loaderPage('/grant/').headers['Content-Security-Policy'];
    const second = loaderPage('/grant/').headers['Content-Security-Policy'];

    expect(first).not.toBe(second);
  });

  it('puts the ticket in the fragment of the loader URL, where servers never see it', () => {
    const url = new URL(loaderLocation('https://acme.example.com', '/api/storage/document-loader/', 'a.b.c'));

    expect(url.pathname).toBe('/api/storage/document-loader/');
    expect(url.search).toBe('');
    expect(url.hash).toBe('#ticket=a.b.c');
  });
});
