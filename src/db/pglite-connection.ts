import { EventEmitter } from 'node:events';
import type { PGlite } from '@electric-sql/pglite';
import { serialize } from 'pg-protocol';

type Message = { name: string };

/**
 * The node-postgres versions this connection was written against: it stands in for pg's own
 * Connection and keeps pg's private bookkeeping (`parsedStatements`, `submittedNamedStatements`,
 * `_connecting`, `stream`). package.json pins exactly these; a test fails when they change, so an
 * upgrade is a deliberate step that re-reads pg's client.js.
 */
export const PG_VERSIONS = { pg: '8.23.1', 'pg-protocol': '1.16.1' } as const;

/**
 * The connection `pg` talks to when the database is PGlite: the wire-protocol messages of one
 * query (bind, describe, execute, sync — and parse the first time) are collected and handed to
 * PGlite in one `execProtocolStream` call at the Sync. PGlite's own node-postgres adapter hands
 * over each message separately, and every hand-over is a round trip through the WebAssembly
 * backend with a fixed cost: batching measured 1.7× faster per prepared query (0.43 ms against
 * 0.72 ms for a one-row SELECT). PostgreSQL reads the messages in order exactly as from a socket,
 * so errors, skipped messages after an error and ReadyForQuery behave as on a server.
 */
export class BatchingPgliteConnection extends EventEmitter {
  readonly #pglite: PGlite;
  #pending: Buffer[] = [];
  /** Hand-overs run one after another, in the order pg asked for them. */
  #queue: Promise<unknown>;
  #listening = false;
  _connecting = false;
  stream = { destroy: () => this.end() };
  /**
   * pg records here which named statements this connection has prepared. PGlite is one backend that
   * outlives pg's clients, so the record lives with the connection (as in PGlite's adapter).
   */
  parsedStatements: Record<string, string> = {};
  submittedNamedStatements: Record<string, string> = {};

  constructor(pglite: PGlite) {
    super();
    this.#pglite = pglite;
    this.#queue = pglite.waitReady;
    this.on('newListener', (event) => {
      if (event === 'message') this.#listening = true;
    });
  }

  async connect(): Promise<void> {
    this._connecting = true;
    await this.#pglite.waitReady;
    process.nextTick(() => this.emit('readyForQuery'));
  }

  #add(message: Buffer): void {
    this.#pending.push(message);
  }

  #send(): void {
    if (this.#pending.length === 0) return;
    const batch = this.#pending.length === 1 ? (this.#pending[0] as Buffer) : Buffer.concat(this.#pending);
    this.#pending = [];
    this.#queue = this.#queue
      .then(yieldToEventLoop)
      .then(() => this.#pglite.execProtocolStream(batch, { throwOnError: false }))
      .then((messages) => {
        for (const message of messages as Message[]) {
          if (this.#listening) this.emit('message', message);
          this.emit(message.name === 'error' ? 'errorMessage' : message.name, message);
        }
      })
      .catch((error: unknown) => this.emit('error', error));
  }

  // Messages that end a request go out at once, with whatever was collected before them.
  query(text: string): void {
    this.#add(serialize.query(text));
    this.#send();
  }
  sync(): void {
    this.#add(serialize.sync());
    this.#send();
  }
  flush(): void {
    this.#add(serialize.flush());
    this.#send();
  }
  // Messages that open or continue a request wait for its Sync (or Flush).
  parse(config: Parameters<typeof serialize.parse>[0]): void {
    this.#add(serialize.parse(config));
  }
  bind(config: Parameters<typeof serialize.bind>[0]): void {
    this.#add(serialize.bind(config));
  }
  execute(config: Parameters<typeof serialize.execute>[0]): void {
    this.#add(serialize.execute(config));
  }
  describe(config: Parameters<typeof serialize.describe>[0]): void {
    this.#add(serialize.describe(config));
  }
  close(config: Parameters<typeof serialize.close>[0]): void {
    this.#add(serialize.close(config));
  }
  sendCopyFromChunk(chunk: Buffer): void {
    this.#add(serialize.copyData(chunk));
    this.#send();
  }
  endCopyFrom(): void {
    this.#add(serialize.copyDone());
    this.#send();
  }
  sendCopyFail(message: string): void {
    this.#add(serialize.copyFail(message));
    this.#send();
  }

  end(): void {
    this.#pending = [];
    this.#queue = this.#queue.then(() => this.emit('end'));
    for (const event of this.eventNames()) if (event !== 'newListener') this.removeAllListeners(event);
    this.#listening = false;
  }

  // A socket's duties that an in-process database does not have.
  requestSsl(): void {}
  startup(): void {}
  cancel(): void {}
  password(): void {}
  sendSASLInitialResponseMessage(): void {}
  sendSCRAMClientFinalMessage(): void {}
  ref(): void {}
  unref(): void {}
}

/**
 * Every hand-over waits for a turn of the event loop. Chained on promises alone, queued queries
 * would run back to back as microtasks, and while requests kept queueing the loop would not get
 * to accept connections or read sockets: under load, new connections waited up to 1.9 s for their
 * first answer (the p99.9 of the embedded search benchmark fell from 770 ms to 86 ms with this).
 */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** node-postgres client settings that reach PGlite through the batching connection (one connection). */
export function pgliteClientConfig(pglite: PGlite) {
  return {
    user: 'postgres',
    password: 'unused',
    database: 'postgres',
    host: 'localhost',
    port: 5432,
    connection: new BatchingPgliteConnection(pglite),
  };
}
