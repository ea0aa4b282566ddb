// Lambda entry of the schema-migration state machine's tasks: Step Functions invokes it with the
// state's Parameters (`task`, `schema_name`, `revision_id`, and `error` on markFailed); a schedule
// invokes it with `{task: 'sweepAll'}` to drop expired tombstones. Errors are thrown with their
// names, which the ASL's Retry and Catch match.
import { loadConfig } from '#shared/config.ts';
import type { Database } from '#shared/db/database.ts';
import { openDatabase } from '#shared/db/open-database.ts';
import { configureLogger, describeError, systemLog } from '#shared/logger.ts';
import { runMigrationTask, type MigrationTaskInput } from './migration-tasks.ts';

let database: Promise<Database> | undefined;

export async function handler(event: MigrationTaskInput): Promise<Record<string, unknown>> {
  const config = loadConfig();
  configureLogger(config.logLevel);
  database ??= openDatabase(config).catch((error: unknown) => {
    database = undefined;
    throw error;
  });
  try {
    const { lockTimeoutMs, ddlTimeoutMs, tombstoneRetentionMs } = config.schemaMigrations;
    return await runMigrationTask({ db: await database, lockTimeoutMs, ddlTimeoutMs, tombstoneRetentionMs }, event);
  } catch (error) {
    systemLog.warn('schema migration task failed', { task: event.task, revision_id: event.revision_id, error: describeError(error) });
    throw error;
  }
}
