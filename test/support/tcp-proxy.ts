// A TCP proxy on loopback that a fault test puts between the platform and PostgreSQL, so it can take
// the database away and bring it back without touching the server other tests share: `cut()` drops
// every open connection and refuses new ones, `restore()` listens again on the same port.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** Connections made through the proxy since it started. */
  connectionsMade(): number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let made = 0;
  const server = createServer((client) => {
    made += 1;
    const upstream = connect(targetPort, targetHost);
    open.add(client);
    open.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await listen(server, 0);
  const port = (server.address() as AddressInfo).port;
  const dropAll = () => {
    for (const socket of open) socket.destroy();
    open.clear();
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      dropAll();
      if (!server.listening) resolve();
      else server.close(() => resolve());
    });
  return {
    port,
    connectionsMade: () => made,
    cut: stop,
    restore: () => listen(server, port),
    close: stop,
  };
}
