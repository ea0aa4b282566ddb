// The bare node:http server the list benchmarks measure the platform against: no auth, no
// middleware, no validation; per request it runs the `answer` it was given for the request's URL
// (the same SQL work as the platform) and writes the JSON text that comes back.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BareServer {
  url: string;
  close(): Promise<void>;
}

/** `answer` gets the request's path and query (`/api/...?a=b`); undefined is a 404. */
export async function startBareServer(answer: (pathAndQuery: string) => Promise<string> | undefined): Promise<BareServer> {
  const server = createServer((request, response) => {
    const work = answer(request.url ?? '/');
    if (work === undefined) {
      response.writeHead(404);
      response.end();
      return;
    }
    work.then(
      (text) => {
        response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
        response.end(text);
      },
      (error: unknown) => {
        console.error('bare server failed to answer', error);
        response.writeHead(500);
        response.end();
      },
    );
  });
  server.keepAliveTimeout = 65_000; // as the dev server
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
