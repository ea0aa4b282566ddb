// A download client for throughput benchmarks that reads the socket in 4 MiB reads (net's
// `onread` buffer). node:http's client reads 64 KiB at a time and, on this kind of machine where a
// loopback read costs a system call of note, tops out near 550 MB/s whatever the server does; a
// client that is itself the bottleneck would measure nothing about the server. The client speaks
// just enough HTTP/1.1 for one GET answered with a Content-Length body: status line, headers, body.
import { createHash } from 'node:crypto';
import { connect } from 'node:net';

const READ_BYTES = 4 * 1024 * 1024;
const HEADER_END = Buffer.from('\r\n\r\n');

export interface Downloaded {
  status: number;
  bytes: number;
  /** SHA-256 of the body, hex, when asked for. */
  digest?: string;
}

/** GETs `objectPath` from `url`'s host and port with `Connection: close`; reads the whole body. */
export function downloadWithLargeReads(
  url: string,
  headers: Record<string, string>,
  objectPath: string,
  hashed: boolean,
): Promise<Downloaded> {
  const { hostname, port } = new URL(url);
  const hash = hashed ? createHash('sha256') : undefined;
  return new Promise((resolve, reject) => {
    let head: Buffer = Buffer.alloc(0);
    let status = 0;
    let expected = -1;
    let bytes = 0;
    const body = (chunk: Buffer) => {
      bytes += chunk.length;
      hash?.update(chunk);
    };
    const readInto = Buffer.allocUnsafe(READ_BYTES);
    const socket = connect({
      host: hostname,
      port: Number(port),
      onread: {
        buffer: readInto,
        callback: (size) => {
          const chunk = readInto.subarray(0, size);
          // Answering true keeps the socket reading.
          if (status !== 0) {
            body(chunk);
            return true;
          }
          // Still in the head: collect until the blank line, then parse it once.
          head = Buffer.concat([head, chunk]);
          const end = head.indexOf(HEADER_END);
          if (end < 0) return true;
          const lines = head.subarray(0, end).toString('latin1').split('\r\n');
          status = Number(lines[0]?.split(' ')[1] ?? 0);
          const length = lines.find((line) => line.toLowerCase().startsWith('content-length:'));
          expected = length === undefined ? -1 : Number(length.slice(length.indexOf(':') + 1).trim());
          body(head.subarray(end + HEADER_END.length));
          return true;
        },
      },
    });
    socket.on('connect', () => {
      const lines = [
        `GET ${objectPath} HTTP/1.1`,
        `Host: ${hostname}:${port}`,
        'Connection: close',
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    socket.on('error', reject);
    socket.on('close', () => {
      if (status === 0) reject(new Error('the connection closed before an answer arrived'));
      else if (expected >= 0 && bytes !== expected) reject(new Error(`the body ended at ${bytes} of ${expected} bytes`));
      else resolve({ status, bytes, digest: hash?.digest('hex') });
    });
  });
}
