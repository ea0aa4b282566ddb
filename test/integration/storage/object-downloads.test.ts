import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createBucket, createStorageSite, type StorageSite, siteSender } from '#test/support/storage.ts';

describe('object downloads', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let objects: string;
  const content = Buffer.from('0123456789abcdefghij'); // 20 bytes
  const send = siteSender(() => ({ app, site, token: admin }));

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Download Site');
    objects = await createBucket(app, admin, site, { name: 'Downloads' });
    await send('PUT', `${objects}data/digits.txt`, { body: content, headers: { 'content-type': 'text/plain' } });
  });
  afterAll(async () => {
    await app.close();
  });

  it('streams the bytes with the stored type, length, entity tag, modification time and nosniff', async () => {
    const answer = await send('GET', `${objects}data/digits.txt`);

    expect(answer.status).toBe(200);
    expect(answer.bytes.equals(content)).toBe(true);
    expect(answer.headers.get('content-type')).toBe('text/plain');
    expect(answer.headers.get('content-length')).toBe('20');
    expect(answer.headers.get('etag')).toMatch(/^".+"$/);
    expect(new Date(answer.headers.get('last-modified')!).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(answer.headers.get('accept-ranges')).toBe('bytes');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('content-disposition')).toBe(`inline; filename="digits.txt"; filename*=UTF-8''digits.txt`);
  });

  it('serves the key with and without a trailing slash', async () => {
    const slashed = await send('GET', `${objects}data/digits.txt/`);

    expect(slashed.status).toBe(200);
    expect(slashed.bytes.equals(content)).toBe(true);
  });

  it('answers a byte range with 206 and Content-Range, suffix and open ranges too', async () => {
    const middle = await send('GET', `${objects}data/digits.txt`, { headers: { range: 'bytes=2-5' } });
    const suffix = await send('GET', `${objects}data/digits.txt`, { headers: { range: 'bytes=-3' } });
    const open = await send('GET', `${objects}data/digits.txt`, { headers: { range: 'bytes=15-' } });
    const clamped = await send('GET', `${objects}data/digits.txt`, { headers: { range: 'bytes=18-100' } });

    expect(middle.status).toBe(206);
    expect(middle.bytes.toString()).toBe('2345');
    expect(middle.headers.get('content-range')).toBe('bytes 2-5/20');
    expect(middle.headers.get('content-length')).toBe('4');
    expect(suffix.bytes.toString()).toBe('hij');
    expect(suffix.headers.get('content-range')).toBe('bytes 17-19/20');
    expect(open.bytes.toString()).toBe('fghij');
    expect(clamped.bytes.toString()).toBe('ij');
  });

  it('answers 416 with the size for a range past the end, and ignores malformed or multiple ranges', async () => {
    const past = await send('GET', `${objects}data/digits.txt`, { headers: { range: 'bytes=20-30' } });
    const malformed = await send('GET', `${objects}data/digits.txt`, { headers: { range: 'lines=1-2' } });
    const several = await send('GET', `${objects}data/digits.txt`, { headers: { range: 'bytes=0-1,4-5' } });

    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe('bytes */20');
    expect(past.json).toMatchObject({ success: false, status_code: 416 });
    expect(malformed.status).toBe(200);
    expect(several.status).toBe(200);
    expect(several.bytes.equals(content)).toBe(true);
  });

  it('answers 304 to If-None-Match with the current tag, and the whole object for a stale If-Range', async () => {
    const first = await send('GET', `${objects}data/digits.txt`);
    const etag = first.headers.get('etag')!;

    const notModified = await send('GET', `${objects}data/digits.txt`, { headers: { 'if-none-match': etag } });
    const stale = await send('GET', `${objects}data/digits.txt`, { headers: { 'if-none-match': '"other"' } });
    const staleRange = await send('GET', `${objects}data/digits.txt`, { headers: { range: 'bytes=0-1', 'if-range': '"other"' } });
    const freshRange = await send('GET', `${objects}data/digits.txt`, { headers: { range: 'bytes=0-1', 'if-range': etag } });

    expect(notModified.status).toBe(304);
    expect(notModified.bytes.length).toBe(0);
    expect(notModified.headers.get('etag')).toBe(etag);
    expect(stale.status).toBe(200);
    expect(staleRange.status).toBe(200);
    expect(freshRange.status).toBe(206);
  });

  it('returns the record as JSON with ?metadata=true, and 400 for unknown query parameters', async () => {
    const metadata = await send('GET', `${objects}data/digits.txt?metadata=true`);
    const unknown = await send('GET', `${objects}data/digits.txt?meta=1`);

    expect(metadata.status).toBe(200);
    expect(metadata.json).toMatchObject({ success: true, status_code: 200, data: { file_path: 'data/digits.txt', size: 20 } });
    expect(unknown.status).toBe(400);
  });

  it('serves any type as an attachment with ?download=true', async () => {
    const answer = await send('GET', `${objects}data/digits.txt?download=true`);

    expect(answer.headers.get('content-disposition')).toMatch(/^attachment; /);
  });

  it('sends HTML, SVG, JavaScript and XML as sandboxed attachments with nosniff', async () => {
    const active = [
      ['page.html', 'text/html', '<script>alert(1)</script>'],
      ['icon.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
      ['app.js', 'text/javascript', 'alert(1)'],
      ['feed.xml', 'application/xml', '<a/>'],
      ['page.xhtml', 'application/xhtml+xml', '<html/>'],
    ];
    for (const [name, type, body] of active) {
      await send('PUT', `${objects}active/${name}`, { body, headers: { 'content-type': type! } });

      const answer = await send('GET', `${objects}active/${name}`);

      expect(answer.headers.get('content-type')).toBe(type);
      expect(answer.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="${name}"`));
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('content-security-policy')).toContain('sandbox');
    }
  });

  it('sends PDFs, multipart/related, CSS and unknown types as sandboxed attachments too', async () => {
    const documents = [
      ['report.pdf', 'application/pdf', '%PDF-1.7\n'],
      ['mail.mht', 'multipart/related', 'MIME-Version: 1.0\r\n\r\n<script>alert(1)</script>'],
      ['style.css', 'text/css', 'body{}'],
      ['thing.bin', 'application/x-unknown-thing', 'bytes'],
    ];
    for (const [name, type, body] of documents) {
      await send('PUT', `${objects}documents/${name}`, { body, headers: { 'content-type': type! } });

      const answer = await send('GET', `${objects}documents/${name}`);

      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="${name}"`));
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('content-security-policy')).toContain('sandbox');
    }
  });

  it('shows raster images, audio, video and plain text inline, with nosniff', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    const media = [
      ['dot.png', 'image/png', png],
      ['song.mp3', 'audio/mpeg', Buffer.from('not really audio')],
      ['clip.webm', 'video/webm', Buffer.from('not really video')],
      ['notes.txt', 'text/plain', Buffer.from('plain')],
    ] as const;
    for (const [name, type, body] of media) {
      await send('PUT', `${objects}media/${name}`, { body, headers: { 'content-type': type } });

      const answer = await send('GET', `${objects}media/${name}`);

      expect(answer.headers.get('content-disposition')).toMatch(new RegExp(`^inline; filename="${name}"`));
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('encodes a non-ASCII file name in Content-Disposition', async () => {
    await send('PUT', `${objects}${encodeURIComponent('résumé "final".pdf')}`, {
      body: '%PDF',
      headers: { 'content-type': 'application/pdf' },
    });

    const answer = await send('GET', `${objects}${encodeURIComponent('résumé "final".pdf')}`);

    expect(answer.headers.get('content-disposition')).toBe(
      `attachment; filename="r_sum_ _final_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.pdf`,
    );
  });

  it('answers 404 for a missing object in the success-flag envelope', async () => {
    const missing = await send('GET', `${objects}nope.txt`);

    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ success: false, status_code: 404, code: 'NOT_FOUND' });
  });
});
