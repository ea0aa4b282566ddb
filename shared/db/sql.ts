// The project's sql`` tag: drizzle's, with the same helpers, building SQL objects drizzle renders and
// runs as its own. Drizzle's SQL constructor scans every chunk for table objects (`is(chunk, Table)`,
// a walk up the chunk's prototype chain) to fill `usedTables`, which only its query cache reads; the
// statements here are built from dozens of small pieces per request, and that scan alone was 5% of
// the data service's CPU time under load. These objects skip it; `usedTables` stays empty.
import { Name, Param, Placeholder, SQL, StringChunk, type DriverValueEncoder, type SQLChunk } from 'drizzle-orm';

/** A drizzle SQL whose chunks were not scanned for tables. */
class UnscannedSql<T> extends SQL<T> {
  constructor(chunks: SQLChunk[]) {
    super([]);
    (this as { queryChunks: SQLChunk[] }).queryChunks = chunks;
  }
}

function tag<T = unknown>(strings: TemplateStringsArray, ...params: unknown[]): SQL<T> {
  const chunks: SQLChunk[] = [];
  if (params.length > 0 || (strings.length > 0 && strings[0] !== '')) chunks.push(new StringChunk(strings[0]!));
  for (let index = 0; index < params.length; index += 1) chunks.push(params[index] as SQLChunk, new StringChunk(strings[index + 1]!));
  return new UnscannedSql<T>(chunks);
}

export const sql = Object.assign(tag, {
  empty: (): SQL => new UnscannedSql([]),
  raw: (text: string): SQL => new UnscannedSql([new StringChunk(text)]),
  join: (chunks: SQLChunk[], separator?: SQLChunk): SQL => {
    const joined: SQLChunk[] = [];
    chunks.forEach((chunk, index) => {
      if (index > 0 && separator !== undefined) joined.push(separator);
      joined.push(chunk);
    });
    return new UnscannedSql(joined);
  },
  identifier: (name: string): Name => new Name(name),
  param: <TData, TDriver>(value: TData, encoder?: DriverValueEncoder<TData, TDriver>): Param<TData, TDriver> => new Param(value, encoder),
  placeholder: <TName extends string>(name: TName): Placeholder<TName> => new Placeholder(name),
});
