// `npm start`: the whole API on one port over the embedded defaults (PGlite under DATA_DIR unless
// DATABASE_URL is set), with migrations applied and the superuser ensured.
// package.json starts it with `--initial-old-space-size=128`: PGlite's WASM heap (about 250 MB) lives
// in this process, and with V8's default starting limit the collector then ran a full mark-compact
// every ~12 MB of socket buffers, halving upload and download speed (storage-transfer benchmark);
// starting the old generation at 128 MB keeps it to the usual one per transfer or so.
import { ConfigError, loadConfig } from '#shared/config.ts';
import { bootLocal } from './boot.ts';
import { claimDataDir } from './data-dir-lock.ts';
import { startDevServer } from './dev-server.ts';
import { startMaintenance } from './maintenance.ts';

async function main(): Promise<void> {
  const startedAt = performance.now();
  const config = loadConfig();
  const { runtime, superuser } = await bootLocal(config);
  // `npm run backup` and `restore` refuse to touch the DATA_DIR while this process lives.
  const releaseDataDir = await claimDataDir(config.dataDir);
  // Before listening: what a killed server left half-done (bytes without a record) is swept first.
  const maintenance = await startMaintenance(runtime);
  const server = await startDevServer(config.port, config.host);
  const database = runtime.db.driver === 'pglite' ? `PGlite in ${config.dataDir}/pglite` : 'PostgreSQL (DATABASE_URL)';
  const lines = [
    `Tessera API listening on ${server.url}  (ready in ${Math.round(performance.now() - startedAt)} ms)`,
    `  database: ${database}`,
    `  superuser: ${superuser.username}${superuser.created ? ' (created)' : ''}`,
  ];
  if (superuser.generatedPassword !== undefined) {
    lines.push(`  generated password: ${superuser.generatedPassword}  (also saved in ${superuser.passwordFile}; shown once)`);
  }
  lines.push(
    `  try: curl -s -X POST ${server.url}/api/auth/jwt/token/ -H 'Content-Type: application/json' -d '{"username":"${superuser.username}","password":"…"}'`,
  );
  console.log(lines.join('\n'));
  const stop = async (): Promise<void> => {
    await server.close();
    await maintenance.stop();
    await runtime.db.close();
    await releaseDataDir();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
