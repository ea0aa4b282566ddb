// The project's sql`` tag: drizzle's, with the same helpers, building SQL objects drizzle renders and
// runs as its own. Drizzle's SQL constructor scans every chunk for table objects (`is(chunk, Table)`,
// a walk up the chunk's prototype chain) to fill `usedTables`, which only its query cache reads; the
// statements here are built from dozens of small pieces per request, and that scan alone was 5% of
// the data service's CPU time under load. These objects skip it; `usedTables` stays empty.
import { Name, Param, Placeholder, SQL, StringChunk, type DriverValueEncoder, type SQLChunk } from 'drizzle-orm';

/**
 * A drizzle SQL made empty (nothing to scan) and then given its chunks. Not a subclass: bundles
 * initialise drizzle's modules lazily, and a class extending SQL at module level would run first.
 */
function unscanned<T>(chunks: SQLChunk[]): SQL<T> {
  const built = new SQL<T>([]);
  (built as { queryChunks: SQLChunk[] }).queryChunks = chunks;
  return built;
}

/**
 * The text pieces of each template, made once: a call site passes the same strings array every time,
 * and a StringChunk is never changed once made, so statements built from one template share them.
 * Made anew per call, they were the largest share of what a list request allocated.
 */
const templateChunks = new WeakMap<TemplateStringsArray, StringChunk[]>();

function textChunksOf(strings: TemplateStringsArray): StringChunk[] {
  let chunks = templateChunks.get(strings);
  if (chunks === undefined) {
    chunks = strings.map((text) => new StringChunk(text));
    templateChunks.set(strings, chunks);
  }
  return chunks;
}

function tag<T = unknown>(strings: TemplateStringsArray, ...params: unknown[]): SQL<T> {
  if (params.length === 0 && (strings.length === 0 || strings[0] === '')) return unscanned<T>([]);
  const text = textChunksOf(strings);
  const chunks: SQLChunk[] = [text[0]!];
  for (let index = 0; index < params.length; index += 1) chunks.push(params[index] as SQLChunk, text[index + 1]!);
  return unscanned<T>(chunks);
}

export const sql = Object.assign(tag, {
  empty: (): SQL => unscanned([]),
  raw: (text: string): SQL => unscanned([new StringChunk(text)]),
  join: (chunks: SQLChunk[], separator?: SQLChunk): SQL => {
    const joined: SQLChunk[] = [];
    chunks.forEach((chunk, index) => {
      if (index > 0 && separator !== undefined) joined.push(separator);
      joined.push(chunk);
    });
    return unscanned(joined);
  },
  identifier: (name: string): Name => new Name(name),
  param: <TData, TDriver>(value: TData, encoder?: DriverValueEncoder<TData, TDriver>): Param<TData, TDriver> => new Param(value, encoder),
  placeholder: <TName extends string>(name: TName): Placeholder<TName> => new Placeholder(name),
});
