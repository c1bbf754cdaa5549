// One socket to Redis: connect (TCP or TLS), AUTH and SELECT, then pipelined commands whose replies
// are matched in send order, a bounded queue of them, and a timeout on the oldest. It never reconnects.
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions as TlsOptions } from 'node:tls';
import {
  RedisClosedError, RedisConnectionError, RedisError, RedisQueueFullError, RedisReplyError, RedisTimeoutError,
} from './errors.js';
import { ReplyParser, type ReplyBounds } from './reply-parser.js';
import { encodeCommand, type RedisArg, type RespValue } from './resp.js';
import type { RedisTarget } from './url.js';

export interface RedisConnectionOptions extends ReplyBounds {
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** Commands awaiting replies at once; one more is refused at once. */
  maxPending: number;
  /** Extra TLS options for rediss:// (a CA for a private certificate, for instance). */
  tls?: TlsOptions;
  /** Pub/sub: replies that are messages go here instead of answering a command. */
  onPush?: (reply: RespValue[]) => void;
}

interface Pending {
  name: string;
  deadline: number;
  /** Replies still expected (SUBSCRIBE a b gets one per channel); the last one answers. */
  expect: number;
  resolve: (value: RespValue) => void;
  reject: (error: RedisError) => void;
}

/**
 * Ordering: replies arrive in the order commands were written, so the oldest pending command owns the
 * next reply. Deadlines grow in send order, so one timer on the oldest covers them all; when it fires,
 * the order of later replies can no longer be trusted and the connection is closed.
 */
export class RedisConnection {
  readonly #socket: Socket;
  readonly #options: RedisConnectionOptions;
  readonly #parser: ReplyParser;
  readonly #pending: Pending[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | null = null;
  #corked = false;
  #failure: RedisError | null = null;
  /** Settles once, with why the connection ended. */
  readonly closed: Promise<RedisError>;
  #markClosed!: (why: RedisError) => void;

  private constructor(socket: Socket, options: RedisConnectionOptions, address: string) {
    this.#socket = socket;
    this.#options = options;
    this.#parser = new ReplyParser(options);
    this.closed = new Promise((resolve) => { this.#markClosed = resolve; });
    socket.setNoDelay(true);
    socket.setKeepAlive(true);
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', (err) => { this.#failure ??= new RedisConnectionError(`connection to Redis at ${address} failed: ${err.message}`, err); });
    socket.on('close', () => this.#onClose(this.#failure ?? new RedisConnectionError(`Redis at ${address} closed the connection`)));
  }

  /** Connects, authenticates and selects the database; rejects with a RedisError (the socket is then gone). */
  static async open(target: RedisTarget, options: RedisConnectionOptions, signal?: AbortSignal): Promise<RedisConnection> {
    const socket = await dial(target, options, signal);
    const conn = new RedisConnection(socket, options, target.address);
    const abort = (): void => conn.close(new RedisClosedError());
    signal?.addEventListener('abort', abort, { once: true });
    try {
      if (target.password !== undefined) {
        await conn.send(target.username === undefined ? ['AUTH', target.password] : ['AUTH', target.username, target.password]);
      }
      if (target.db !== 0) await conn.send(['SELECT', target.db]);
    } catch (err) {
      conn.close();
      throw err;
    } finally {
      signal?.removeEventListener('abort', abort);
    }
    return conn;
  }

  get pendingCount(): number { return this.#pending.length - this.#head; }

  /** Sends one command; `expect` is how many replies it gets (pub/sub commands get one per channel). */
  send(args: readonly RedisArg[], expect = 1): Promise<RespValue> {
    const name = String(args[0] ?? '').toUpperCase();
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.pendingCount >= this.#options.maxPending) return Promise.reject(new RedisQueueFullError(name, this.#options.maxPending));
    return new Promise((resolve, reject) => {
      this.#pending.push({ name, deadline: Date.now() + this.#options.commandTimeoutMs, expect, resolve, reject });
      if (this.#timer === null) this.#armTimer();
      // Commands sent in one tick leave in one write: cork now, uncork once the tick's code is done.
      if (!this.#corked) {
        this.#corked = true;
        this.#socket.cork();
        process.nextTick(() => { this.#corked = false; this.#socket.uncork(); });
      }
      this.#socket.write(encodeCommand(args));
    });
  }

  /** Closes the socket; commands in flight fail with `why`. */
  close(why: RedisError = new RedisConnectionError('the Redis connection was closed by the client')): void {
    this.#failure ??= why;
    this.#socket.destroy();
  }

  #onData(chunk: Buffer): void {
    let replies: RespValue[];
    try {
      replies = this.#parser.feed(chunk);
    } catch (err) {
      const why = err instanceof RedisError ? err : new RedisConnectionError(String(err));
      // The command whose reply broke the bound gets that error; the others a (retryable) connection error.
      this.#takeHead()?.reject(why);
      this.close(new RedisConnectionError(`the Redis connection was closed: ${why.message}`, why));
      return;
    }
    for (const reply of replies) {
      if (this.#options.onPush && isPush(reply)) { this.#push(this.#options.onPush, reply); continue; }
      const head = this.#pending[this.#head];
      if (head === undefined) { this.close(new RedisConnectionError('Redis sent a reply no command was waiting for')); return; }
      if (--head.expect > 0) continue;
      this.#takeHead();
      if (reply instanceof RedisReplyError) head.reject(reply);
      else head.resolve(reply);
    }
    // Once per chunk, not per reply: the next oldest command's deadline.
    if (replies.length > 0) this.#armTimer();
  }

  /** A handler that throws is a bug of its caller: it is raised on its own, after this chunk's replies are accounted for. */
  #push(handler: (reply: RespValue[]) => void, reply: RespValue[]): void {
    try {
      handler(reply);
    } catch (err) {
      process.nextTick(() => { throw err; });
    }
  }

  #takeHead(): Pending | undefined {
    const head = this.#pending[this.#head];
    if (head === undefined) return undefined;
    this.#head++;
    if (this.#head === this.#pending.length) { this.#pending.length = 0; this.#head = 0; }
    else if (this.#head > 1024 && this.#head * 2 > this.#pending.length) { this.#pending.splice(0, this.#head); this.#head = 0; }
    return head;
  }

  #armTimer(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const head = this.#pending[this.#head];
    if (head === undefined || this.#failure) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      const late = this.#takeHead();
      if (late === undefined) return;
      const why = new RedisTimeoutError(late.name, this.#options.commandTimeoutMs);
      late.reject(why);
      this.close(new RedisConnectionError(`the Redis connection was reset after ${late.name} timed out`));
    }, Math.max(0, head.deadline - Date.now()));
  }

  #onClose(why: RedisError): void {
    this.#failure ??= why;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const left = this.#pending.splice(this.#head);
    this.#pending.length = 0;
    this.#head = 0;
    for (const p of left) p.reject(this.#failure);
    this.#markClosed(this.#failure);
  }
}

/** RESP2 pub/sub messages: ["message", channel, payload] and ["pmessage", pattern, channel, payload]. */
function isPush(reply: RespValue): reply is RespValue[] {
  return Array.isArray(reply) && (reply[0] === 'message' || reply[0] === 'pmessage');
}

function dial(target: RedisTarget, options: RedisConnectionOptions, signal?: AbortSignal): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = target.tls
      ? tlsConnect({ host: target.host, port: target.port, ...(isIP(target.host) ? {} : { servername: target.host }), ...options.tls })
      : netConnect({ host: target.host, port: target.port });
    const ready = target.tls ? 'secureConnect' : 'connect';
    const fail = (message: string, cause?: unknown): void => {
      cleanup();
      socket.destroy();
      reject(new RedisConnectionError(`cannot connect to Redis at ${target.address}: ${message}`, cause));
    };
    const onError = (err: Error): void => fail(err.message, err);
    const onAbort = (): void => fail('the client was closed');
    const timer = setTimeout(() => fail(`no connection within ${options.connectTimeoutMs} ms`), options.connectTimeoutMs);
    const cleanup = (): void => {
      clearTimeout(timer);
      socket.off('error', onError);
      socket.off(ready, onReady);
      signal?.removeEventListener('abort', onAbort);
    };
    const onReady = (): void => { cleanup(); resolve(socket); };
    socket.once('error', onError);
    socket.once(ready, onReady);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}
