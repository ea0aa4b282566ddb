import { describe, expect, it } from 'vitest';
import {
  servedInline,
  isMimePattern,
  isOfficeEditable,
  mimeEssence,
  mimeTypeAllowed,
  uploadMimeType,
} from '#functions/storage/mime-rules.ts';

describe('MIME patterns of allow-lists', () => {
  it.each([
    'image/png',
    'image/*',
    '*/*',
    'application/vnd.ms-excel',
    'application/ld+json',
    'x-world/x-3dmf',
    'IMAGE/PNG',
    '3gpp/video.v2',
  ])('accepts %s', (pattern) => {
    expect(isMimePattern(pattern)).toBe(true);
  });

  it.each([
    'image',
    'image/',
    '/png',
    '*/png',
    '*',
    '**/*',
    'image/**',
    '-image/png',
    'image/-png',
    '.a/b',
    'image/pn g',
    'image/png;q=1',
    'image/png ',
    ' image/png',
    'im_age/png',
    'a/b/c',
    '',
  ])('refuses %j', (pattern) => {
    expect(isMimePattern(pattern)).toBe(false);
  });
});

describe('matching a type against an allow-list', () => {
  it('admits everything when the list is empty or holds */*', () => {
    expect(mimeTypeAllowed('application/x-anything', [])).toBe(true);
    expect(mimeTypeAllowed('application/x-anything', ['image/png', '*/*'])).toBe(true);
  });

  it('admits any subtype under type/* and only that type', () => {
    expect(mimeTypeAllowed('image/webp', ['image/*'])).toBe(true);
    expect(mimeTypeAllowed('video/webm', ['image/*'])).toBe(false);
    expect(mimeTypeAllowed('imagex/png', ['image/*'])).toBe(false);
  });

  it('matches exact entries whatever their case, and nothing else', () => {
    expect(mimeTypeAllowed('application/pdf', ['Application/PDF'])).toBe(true);
    expect(mimeTypeAllowed('application/pdfx', ['application/pdf'])).toBe(false);
    expect(mimeTypeAllowed('text/plain', ['application/pdf', 'image/*'])).toBe(false);
  });
});

describe('the type an upload is stored with', () => {
  it('reads the essence of a Content-Type, lowercase, without parameters', () => {
    expect(mimeEssence('Text/HTML; charset=UTF-8')).toBe('text/html');
    expect(mimeEssence('not a type')).toBeUndefined();
    expect(mimeEssence('text/')).toBeUndefined();
  });

  it('takes the sent type, or the one the name suggests when none or octet-stream was sent', async () => {
    await expect(uploadMimeType('image/png', 'a.txt')).resolves.toBe('image/png');
    await expect(uploadMimeType(undefined, 'a.txt')).resolves.toBe('text/plain');
    await expect(uploadMimeType('application/octet-stream', 'slides.pptx')).resolves.toBe(
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    );
    await expect(uploadMimeType('', 'noextension')).resolves.toBe('application/octet-stream');
    await expect(uploadMimeType('garbage', 'a.txt')).resolves.toBeUndefined();
  });
});

describe('what a type means when served', () => {
  it.each(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'audio/mpeg', 'video/mp4', 'text/plain'])(
    '%s may be shown inline',
    (type) => {
      expect(servedInline(type)).toBe(true);
    },
  );

  it.each([
    'text/html',
    'image/svg+xml',
    'application/xhtml+xml',
    'text/javascript',
    'application/xml',
    'application/pdf',
    'multipart/related',
    'application/json',
    'text/css',
    'text/csv',
    'application/octet-stream',
    'image/x-unknown',
  ])('%s is served as an attachment', (type) => {
    expect(servedInline(type)).toBe(false);
  });

  it('knows the Office types a browser can edit', () => {
    expect(isOfficeEditable('application/vnd.openxmlformats-officedocument.wordprocessingml.document')).toBe(true);
    expect(isOfficeEditable('application/msword')).toBe(true);
    expect(isOfficeEditable('application/vnd.ms-excel')).toBe(true);
    expect(isOfficeEditable('application/vnd.ms-powerpoint')).toBe(true);
    expect(isOfficeEditable('application/pdf')).toBe(false);
  });
});
