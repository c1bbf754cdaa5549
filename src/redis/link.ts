// What every Redis connection holder shares: the resolved options, the reconnecting link, its state
// and events. Subclasses decide what a fresh connection must do before it counts as connected.
import { RedisClosedError, RedisUnavailableError, type RedisError } from './errors.js';
import { RedisConnection, type RedisConnectionOptions } from './socket.js';
import { resolveOptions, type RedisClientOptions } from './options.js';
import { Reconnector, type RedisState, type StateEvent } from './reconnect.js';

export abstract class RedisLink {
  /** host:port, for messages. */
  readonly address: string;
  readonly #link: Reconnector;

  /** Starts connecting at once; throws RedisUrlError for a bad URL. `prepare` runs on each new connection. */
  protected constructor(
    options: RedisClientOptions,
    extra: Partial<RedisConnectionOptions>,
    prepare: (conn: RedisConnection) => Promise<void>,
  ) {
    const { target, connection, backoff } = resolveOptions(options);
    this.address = target.address;
    const open = async (signal: AbortSignal): Promise<RedisConnection> => {
      const conn = await RedisConnection.open(target, { ...connection, ...extra }, signal);
      try {
        await prepare(conn);
      } catch (err) {
        conn.close();
        throw err;
      }
      return conn;
    };
    this.#link = new Reconnector(open, backoff);
  }

  get state(): RedisState { return this.#link.state; }
  get lastError(): RedisError | null { return this.#link.lastError; }

  /** Listens to connected / disconnected / closed; returns the function that stops listening. */
  onState(listener: (event: StateEvent) => void): () => void { return this.#link.onState(listener); }

  /** Resolves when connected (at once if so); rejects with RedisClosedError if closed first. */
  connected(): Promise<void> {
    if (this.state === 'connected') return Promise.resolve();
    if (this.state === 'closed') return Promise.reject(new RedisClosedError());
    return new Promise((resolve, reject) => {
      const off = this.onState((e) => {
        if (e.state === 'connected') { off(); resolve(); }
        else if (e.state === 'closed') { off(); reject(new RedisClosedError()); }
      });
    });
  }

  /** Stops reconnecting and closes the connection; commands in flight fail with RedisClosedError. */
  close(): void { this.#link.close(); }

  /** The live connection; while not connected, throws at once (RedisUnavailableError, retryable). */
  protected live(): RedisConnection {
    const conn = this.#link.connection;
    if (conn !== null) return conn;
    throw this.state === 'closed' ? new RedisClosedError() : new RedisUnavailableError(this.address, this.lastError);
  }
}

