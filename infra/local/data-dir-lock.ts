// Who is using a DATA_DIR: the dev server writes its process id to `server.pid` while it runs, so
// `npm run backup` and `npm run restore` can refuse to copy or replace files under a live server
// (PGlite is one process: a second one opening the same folder would corrupt it).
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

const PID_FILE = 'server.pid';

export function pidFileOf(dataDir: string): string {
  return path.join(dataDir, PID_FILE);
}

export async function claimDataDir(dataDir: string): Promise<() => Promise<void>> {
  const file = pidFileOf(dataDir);
  await writeFile(file, `${process.pid}\n`);
  return () => rm(file, { force: true });
}

/** The id of a live process that holds the DATA_DIR, or undefined (none, or one that died: a crash). */
export async function liveServerOf(dataDir: string): Promise<number | undefined> {
  const text = await readFile(pidFileOf(dataDir), 'utf8').catch(() => undefined);
  const pid = Number(text?.trim());
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: alive, but someone else's.
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}
