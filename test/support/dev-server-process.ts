// `npm start` in a child process on the embedded defaults (PGlite under a data folder, a free port),
// for the end-to-end tests that speak HTTP to it as a client would.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';

export interface RunningServer {
  process: ChildProcessWithoutNullStreams;
  url: string;
  output: string;
}

/** Starts the server; `startTimeoutMs` bounds the wait for its "listening" line (the child is killed then). */
export function startServer(dataDir: string, startTimeoutMs = 45_000): Promise<RunningServer> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', PASSWORD_SCRYPT_COST: '1024', LOG_LEVEL: 'WARN' };
  delete env.DATABASE_URL; // the embedded default is what `npm start` runs on a fresh machine
  delete env.ADMIN_PASSWORD;
  const child = spawn(path.resolve('node_modules/.bin/tsx'), ['infra/local/server.ts'], { env });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${output}`));
    }, startTimeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve({ process: child, url: found[1]!, output });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

export function stopServer(server: RunningServer): Promise<number | null> {
  return new Promise((resolve) => {
    server.process.removeAllListeners('exit');
    server.process.once('exit', (code) => resolve(code));
    server.process.kill('SIGTERM');
  });
}
