// Named prepared statements on PGlite. PGlite's `query` parses and plans every statement anew (an
// unnamed statement each time); for the caller-and-site statement of every tenant request that is
// four fifths of its cost in WebAssembly. This keeps a named statement per text, as postgres.js does
// on PostgreSQL, and speaks the same extended-protocol messages `query` sends (bind, describe,
// execute, sync) under the same locks, so results, errors and parsers are `query`'s own.
import { parse, protocol, type PGlite, type QueryOptions, type Results } from '@electric-sql/pglite';

type BackendMessages = Awaited<ReturnType<PGlite['execProtocolStream']>>;

interface PreparedStatement {
  name: string;
  /** Type OIDs of the parameters, as PostgreSQL inferred them, for PGlite's serializers. */
  parameterTypes: number[];
}

/** PostgreSQL's answer when a prepared statement's result columns changed under it (DDL). */
function isStalePlan(error: unknown): boolean {
  return error instanceof Error && /cached plan must not change result type/.test(error.message);
}

export class PglitePreparedStatements {
  private readonly statements = new Map<string, PreparedStatement>();
  private counter = 0;

  constructor(private readonly client: PGlite) {}

  /** Runs `text` as a named prepared statement, preparing it on first use. */
  async run(text: string, params: readonly unknown[], options: QueryOptions): Promise<Results> {
    try {
      return await this.runOnce(text, params, options);
    } catch (error) {
      if (!isStalePlan(error)) throw error;
      // Prepared again under a new name; the old one stays unused in this one connection.
      this.statements.delete(text);
      return this.runOnce(text, params, options);
    }
  }

  private runOnce(text: string, params: readonly unknown[], options: QueryOptions): Promise<Results> {
    const client = this.client;
    // The locks `query` takes: after any open transaction, one exchange of messages at a time.
    return client._runExclusiveTransaction(() =>
      client._runExclusiveQuery(async () => {
        const send = (message: Uint8Array) => client.execProtocolStream(message, { syncToFs: false });
        const messages: BackendMessages = [];
        try {
          const statement = this.statements.get(text) ?? (await this.prepare(text, send));
          const values = params.map((value, index) => {
            if (value === null || value === undefined) return null;
            const serialize = client.serializers[statement.parameterTypes[index]!];
            return serialize ? serialize(value) : String(value);
          });
          messages.push(...(await send(protocol.serialize.bind({ statement: statement.name, values }))));
          messages.push(...(await send(protocol.serialize.describe({ type: 'P' }))));
          messages.push(...(await send(protocol.serialize.execute({}))));
        } finally {
          messages.push(...(await send(protocol.serialize.sync())));
        }
        if (!client.isInTransaction()) await client.syncToFs();
        return parse.parseResults(messages, client.parsers, options)[0]!;
      }),
    );
  }

  private async prepare(text: string, send: (message: Uint8Array) => Promise<BackendMessages>): Promise<PreparedStatement> {
    this.counter += 1;
    const name = `tessera_${this.counter}`;
    await send(protocol.serialize.parse({ name, text }));
    const described = await send(protocol.serialize.describe({ type: 'S', name }));
    const statement = { name, parameterTypes: parse.parseDescribeStatementResults(described) };
    this.statements.set(text, statement);
    return statement;
  }
}
