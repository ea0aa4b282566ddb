import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkedMimeType, sniffStream, typesAgree } from '#functions/storage/byte-signatures.ts';

const EXE = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(64, 0)]);
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const ZIP = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(60, 0)]);

describe('byte signatures', () => {
  it('hands back every byte after sniffing the head, in order', async () => {
    const chunks = Array.from({ length: 50 }, (_, i) => Buffer.alloc(1000, i));
    const { head, stream } = await sniffStream(Readable.from(chunks));
    const whole: Buffer[] = [];
    for await (const chunk of stream) whole.push(chunk as Buffer);

    expect(head.length).toBeGreaterThanOrEqual(4100);
    expect(head.length).toBeLessThan(50_000);
    expect(Buffer.concat(whole).equals(Buffer.concat(chunks))).toBe(true);
  });

  it('sniffs a body shorter than the sample, and an empty one', async () => {
    const short = await sniffStream(Readable.from([Buffer.from('abc')]));
    const empty = await sniffStream(Readable.from([]));
    const rest: Buffer[] = [];
    for await (const chunk of short.stream) rest.push(chunk as Buffer);

    expect(short.head.toString()).toBe('abc');
    expect(Buffer.concat(rest).toString()).toBe('abc');
    expect(empty.head.length).toBe(0);
  });

  it('tells agreeing types from contradicting ones', async () => {
    await expect(typesAgree('image/png', { mime: 'application/x-msdownload', ext: 'exe' })).resolves.toBe(false);
    await expect(typesAgree('text/plain', { mime: 'application/pdf', ext: 'pdf' })).resolves.toBe(false);
    await expect(typesAgree('image/jpg', { mime: 'image/jpeg', ext: 'jpg' })).resolves.toBe(true);
    await expect(typesAgree('audio/mp3', { mime: 'audio/mpeg', ext: 'mp3' })).resolves.toBe(true);
    await expect(
      typesAgree('application/vnd.openxmlformats-officedocument.wordprocessingml.document', { mime: 'application/zip', ext: 'zip' }),
    ).resolves.toBe(true);
    await expect(typesAgree('image/svg+xml', { mime: 'application/xml', ext: 'xml' })).resolves.toBe(true);
    await expect(typesAgree('image/svg+xml', { mime: 'image/png', ext: 'png' })).resolves.toBe(false);
  });

  it('keeps the declared type, names untyped bytes, and refuses contradictions and types outside the allow-list', async () => {
    const anyType = { allowed_mime_types: [] };
    await expect(checkedMimeType('image/png', PNG, anyType)).resolves.toBe('image/png');
    await expect(checkedMimeType('application/octet-stream', EXE, anyType)).resolves.toBe('application/x-msdownload');
    await expect(checkedMimeType('text/csv', Buffer.from('a,b\n1,2\n'), anyType)).resolves.toBe('text/csv');
    await expect(checkedMimeType('image/png', EXE, anyType)).rejects.toMatchObject({ status: 400 });
    await expect(checkedMimeType('image/jpeg', PNG, { allowed_mime_types: ['image/jpeg'] })).rejects.toMatchObject({ status: 400 });
    await expect(
      checkedMimeType('application/vnd.openxmlformats-officedocument.wordprocessingml.document', ZIP, {
        allowed_mime_types: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
      }),
    ).resolves.toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
  });
});
