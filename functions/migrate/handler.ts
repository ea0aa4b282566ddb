// Lambda entry of the deploy-time migration, invoked by a CDK Trigger once the database and its
// proxy exist (and again whenever this bundle, which carries the migrations, changes). A thrown
// error fails the deployment, which is the point: the API never runs against an old schema.
import { loadConfig } from '#shared/config.ts';
import { openDatabase } from '#shared/db/open-database.ts';
import { configureLogger, describeError, systemLog } from '#shared/logger.ts';
import { readSecret, writeSecret } from '#shared/secrets/secret-store.ts';
import { runDeployMigration, type DeployMigrationResult } from './deploy-migration.ts';

export async function handler(): Promise<DeployMigrationResult> {
  const config = loadConfig();
  configureLogger(config.logLevel);
  const db = await openDatabase(config);
  try {
    const result = await runDeployMigration(config, { db, secrets: { read: readSecret, write: writeSecret } });
    systemLog.info('deploy migration finished', { ...result });
    return result;
  } catch (error) {
    systemLog.error('deploy migration failed', { error: describeError(error) });
    throw error;
  } finally {
    await db.close();
  }
}
