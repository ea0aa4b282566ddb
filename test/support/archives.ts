// Build archives for the hosting tests, hostile ones included: tar and tar.gz through tar-stream's
// packer, zip through a small writer of our own (zip libraries refuse to write `../` names, links
// and lying sizes, which is exactly what these tests need to send).
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';
import tar from 'tar-stream';

export interface TarEntry {
  name: string;
  data?: Buffer | string;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device' | 'block-device' | 'fifo';
  linkname?: string;
}

export async function tarArchive(entries: readonly TarEntry[], options: { gzip?: boolean } = {}): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer);
  })();
  for (const entry of entries) {
    const type = entry.type ?? 'file';
    const data = type === 'file' ? Buffer.from(entry.data ?? '') : Buffer.alloc(0);
    await new Promise<void>((resolve, reject) => {
      pack.entry(
        { name: entry.name, type, linkname: entry.linkname, size: data.length, mode: type === 'directory' ? 0o755 : 0o644 },
        data,
        (error) => (error ? reject(error) : resolve()),
      );
    });
  }
  pack.finalize();
  await collected;
  const archive = Buffer.concat(chunks);
  return options.gzip ? gzipSync(archive) : archive;
}

export interface ZipEntry {
  name: string;
  data?: Buffer | string;
  /** Unix mode with file type bits (0o120777 makes a symbolic link). */
  mode?: number;
  /** Stored entries are written as they are; deflated ones compressed. */
  deflate?: boolean;
}

/** A zip file with a central directory, names written exactly as given (UTF-8 flag set). */
export function zipArchive(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = Buffer.from(entry.data ?? '');
    const packed = entry.deflate ? deflateRawSync(data) : data;
    const method = entry.deflate ? 8 : 0;
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, packed);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, so the external attributes carry a mode
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((entry.mode ?? (entry.name.endsWith('/') ? 0o040755 : 0o100644)) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
