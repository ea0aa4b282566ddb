// An S3-compatible server on loopback for tests: s3rver (files in a temp folder) behind a small
// proxy that records every request, injects faults on demand (DeleteObjects failing), and makes up
// for where s3rver falls short of S3:
// - AbortMultipartUpload is missing: the proxy removes the upload's parts itself;
// - DeleteObjects deletes its keys concurrently and races on removing the folders they share
//   (a 500 now and then, with deletions still running after the answer): the proxy deletes the
//   keys one after the other through s3rver's store, as its single-object DELETE does, and answers
//   the batch itself;
// - `Range: bytes=0-0` is served as the whole object (an end of 0 reads as "no end"): the proxy
//   passes on the first byte only;
// - listing past 1000 keys fails (its continuation tokens use DES, which Node 17+ lacks): tests
//   read the keys from s3rver's folder instead.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import type { S3StoreConfig } from '#shared/config.ts';
import { S3ObjectStore, s3ClientFor, type S3ObjectStoreOptions } from '#shared/storage/s3-object-store.ts';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** What the caller got: from s3rver, or from the proxy (an injected fault, an emulated call). */
  status: number;
}

export interface S3TestServer {
  /** The proxy's URL: what clients, the dev server and presigned URLs talk to. */
  endpoint: string;
  bucket: string;
  config: S3StoreConfig;
  /** Environment that points the platform's configuration at this server. */
  env: Record<string, string>;
  requests: RecordedRequest[];
  client(): S3Client;
  store(options?: Partial<Omit<S3ObjectStoreOptions, 'client' | 'bucket'>>): S3ObjectStore;
  /** Every key in the bucket, sorted (read from s3rver's folder: its listing stops at 1000). */
  keys(): Promise<string[]>;
  /** Multipart uploads begun and neither completed nor aborted. */
  pendingMultipartUploads(): Promise<number>;
  /**
   * From now on, DeleteObjects calls after the first `after` fail until `heal()`: whole (500
   * InternalError), or, with `keys`, only for the keys it matches (reported as errors of a 200).
   */
  failDeleteObjects(options?: { after?: number; keys?: (key: string) => boolean }): void;
  heal(): void;
  close(): Promise<void>;
}

const ACCESS_KEY = 'S3RVER'; // s3rver's built-in account
const OBJECT_SUFFIX = '._S3rver_object';

function isDeleteObjects(method: string, url: URL): boolean {
  return method === 'POST' && url.searchParams.has('delete');
}

function isAbortMultipartUpload(method: string, url: URL): boolean {
  return method === 'DELETE' && url.searchParams.has('uploadId');
}

/** Reads a request body whole (DeleteObjects bodies are small), or drains one nobody needs. */
async function bodyOf(incoming: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescapeXml = (text: string) => text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => XML_ENTITIES[name]!);
const escapeXml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => `&${Object.entries(XML_ENTITIES).find(([, value]) => value === char)![0]};`);

function deleteRequestKeys(body: string): { keys: string[]; quiet: boolean } {
  const keys = [...body.matchAll(/<Key>([^<]*)<\/Key>/g)].map((match) => unescapeXml(match[1]!));
  return { keys, quiet: /<Quiet>\s*true\s*<\/Quiet>/i.test(body) };
}

function answerXml(response: ServerResponse, status: number, body = ''): void {
  response.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

export async function startS3Server(options: { bucket?: string } = {}): Promise<S3TestServer> {
  const bucket = options.bucket ?? 'tessera-objects';
  const directory = await mkdtemp(path.join(tmpdir(), 'tessera-s3rver-'));
  const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const upstream = await s3rver.run();
  // s3rver keeps the parts of an unfinished multipart upload in this folder, one folder per upload.
  const uploadsFolder = path.join(directory, bucket, '._S3rver_uploads');

  const requests: RecordedRequest[] = [];
  let deleteObjectsCalls = 0;
  let deleteFault: { after: number; keys?: (key: string) => boolean } | undefined;

  /** One key, the way s3rver's single-object DELETE removes it (straight through its store). */
  const deleteOne = async (key: string): Promise<boolean> => {
    try {
      if (await s3rver.store.existsObject(bucket, key)) await s3rver.store.deleteObject(bucket, key);
      return true;
    } catch {
      return false;
    }
  };

  const deleteObjects = async (incoming: IncomingMessage, response: ServerResponse): Promise<number> => {
    const { keys, quiet } = deleteRequestKeys(await bodyOf(incoming));
    deleteObjectsCalls += 1;
    const faulty = deleteFault !== undefined && deleteObjectsCalls > deleteFault.after;
    if (faulty && deleteFault?.keys === undefined) {
      answerXml(
        response,
        500,
        '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code><Message>Injected fault</Message></Error>',
      );
      return 500;
    }
    const results: string[] = [];
    for (const key of keys) {
      const refused = faulty && deleteFault?.keys?.(key) === true;
      if (refused || !(await deleteOne(key))) {
        results.push(`<Error><Key>${escapeXml(key)}</Key><Code>InternalError</Code><Message>Injected fault</Message></Error>`);
      } else if (!quiet) {
        results.push(`<Deleted><Key>${escapeXml(key)}</Key></Deleted>`);
      }
    }
    answerXml(
      response,
      200,
      `<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${results.join('')}</DeleteResult>`,
    );
    return 200;
  };

  const abortMultipartUpload = async (incoming: IncomingMessage, response: ServerResponse, url: URL): Promise<number> => {
    await bodyOf(incoming);
    await rm(path.join(uploadsFolder, path.basename(url.searchParams.get('uploadId') ?? '')), { recursive: true, force: true });
    response.writeHead(204).end();
    return 204;
  };

  const pass = (incoming: IncomingMessage, response: ServerResponse, record: RecordedRequest): void => {
    const firstByteOnly = incoming.method === 'GET' && incoming.headers.range === 'bytes=0-0';
    const outgoing = forward(
      { host: upstream.address, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        record.status = answer.statusCode ?? 0;
        if (firstByteOnly && answer.statusCode === 206) {
          const size = /\/(\d+)$/.exec(answer.headers['content-range'] ?? '')?.[1] ?? '0';
          response.writeHead(206, { ...answer.headers, 'content-range': `bytes 0-0/${size}`, 'content-length': '1' });
          answer.once('data', (chunk: Buffer) => {
            response.end(chunk.subarray(0, 1));
            answer.destroy();
          });
          return;
        }
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    outgoing.on('error', (error) => response.destroy(error));
    incoming.pipe(outgoing);
  };

  const handle = async (incoming: IncomingMessage, response: ServerResponse): Promise<void> => {
    const method = incoming.method ?? 'GET';
    const url = new URL(incoming.url ?? '/', 'http://proxy');
    const record: RecordedRequest = { method, path: url.pathname, query: url.searchParams, status: 0 };
    requests.push(record);
    if (isDeleteObjects(method, url)) record.status = await deleteObjects(incoming, response);
    else if (isAbortMultipartUpload(method, url)) record.status = await abortMultipartUpload(incoming, response, url);
    else pass(incoming, response, record);
  };

  const proxy: Server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: unknown) => response.destroy(error as Error));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

  const config: S3StoreConfig = {
    backend: 's3',
    bucket,
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: ACCESS_KEY },
  };
  const clients: S3Client[] = [];
  const client = (): S3Client => {
    const created = s3ClientFor(config);
    clients.push(created);
    return created;
  };

  return {
    endpoint,
    bucket,
    config,
    env: {
      OBJECT_STORE: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: config.region,
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: ACCESS_KEY,
      S3_SECRET_ACCESS_KEY: ACCESS_KEY,
    },
    requests,
    client,
    store: (storeOptions = {}) => new S3ObjectStore({ client: client(), bucket, ...storeOptions }),
    keys: async () => {
      // s3rver keeps object `a/b` as the file `a/b._S3rver_object` under the bucket's folder.
      const files = await readdir(path.join(directory, bucket), { recursive: true });
      return files
        .filter((file) => file.endsWith(OBJECT_SUFFIX))
        .map((file) => file.slice(0, -OBJECT_SUFFIX.length).split(path.sep).join('/'))
        .sort();
    },
    pendingMultipartUploads: async () => (await readdir(uploadsFolder).catch(() => [])).length,
    failDeleteObjects: (faultOptions = {}) => {
      deleteObjectsCalls = 0;
      deleteFault = { after: faultOptions.after ?? 0, keys: faultOptions.keys };
    },
    heal: () => {
      deleteFault = undefined;
    },
    close: async () => {
      for (const created of clients) created.destroy();
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await s3rver.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
