// One record by its key: through the remembered table in the caller's own statement when it can
// (fused-reads.ts), else the ordinary way.
import type { RequestContext } from '#shared/http/request-context.ts';
import { readableTable, readRecordWithRememberedTable, type TableAddress } from './fused-reads.ts';
import { queryError } from './query/query-error.ts';
import { readRecord, recordOrNotFound, type DataRecord } from './record-service.ts';

export async function readTableRecord(ctx: RequestContext, address: TableAddress, id: string): Promise<{ data: DataRecord }> {
  const read = await readRecordWithRememberedTable(ctx, address, id);
  // populate, format and include belong to a later issue; say so rather than ignore them.
  const [unsupported] = new URLSearchParams(ctx.request.rawQuery);
  if (unsupported !== undefined) throw queryError(unsupported[0], 'is not supported on a single record yet');
  if (read === undefined) return { data: await readRecord(ctx.runtime.db, await readableTable(ctx, address), id) };
  return { data: recordOrNotFound(read.descriptor, id, read.rows) };
}
