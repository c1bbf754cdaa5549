// One client connection to Roo Code's IPC socket: connect, wait for the Ack, decode frames, and
// reconnect forever with backoff. It never queues events or matches replies (that is bridge.ts).
import { stat } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import type { Logger } from '../log.js';
import { encodeFrame, FrameDecoder, parseFrame, type AckData, type IpcMessage, type TaskEventData } from './frames.js';

export type SocketTarget = { kind: 'path'; path: string } | { kind: 'tcp'; host: string; port: number };

/**
 * idle → connecting → handshaking → ready; any failure → waiting (a reconnect is scheduled) →
 * connecting …; close() → closed from anywhere, for good.
 */
export type ConnectionState = 'idle' | 'connecting' | 'handshaking' | 'ready' | 'waiting' | 'closed';

export interface ConnectionHandlers {
  /** The peer acked: commands may now carry `ack.clientId`. Called again after every reconnect. */
  onReady(ack: AckData): void;
  /** `bytes`: the size of the event's frame, for byte-bounded queues. */
  onEvent(event: TaskEventData, bytes: number): void;
  /** A ready connection went away; `reason` is the best explanation known. */
  onDown(reason: string): void;
  /** An attempt ended without an Ack; `lastError` now says why. */
  onAttemptFailed?(): void;
}

export interface ConnectionOptions {
  target: SocketTarget;
  maxFrameBytes: number;
  /** A TaskEvent frame larger than this keeps its name, its payload replaced by a marker. */
  maxEventBytes: number;
  /** A peer that accepts but never acks is dropped after this long and retried. */
  handshakeTimeoutMs: number;
  backoff: { initialMs: number; maxMs: number };
  /** Source of jitter in [0, 1); injectable so tests can pin it. */
  random: () => number;
  log: Logger;
  handlers: ConnectionHandlers;
}

/** Delay before reconnect attempt `attempt` (1-based): doubling from initialMs, capped, with half of it jittered. */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number, random: () => number): number {
  const base = Math.min(maxMs, initialMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return Math.round(base / 2 + random() * (base / 2));
}

/** node-ipc turns a path into a named pipe on Windows (reference B4); the same rule here keeps paths interchangeable. */
export function platformSocketPath(path: string, platform: string = process.platform): string {
  const prefix = '\\\\.\\pipe\\';
  if (platform !== 'win32' || path.startsWith(prefix)) return path;
  return prefix + path.replace(/^\//, '').replace(/\//g, '-');
}

export function describeTarget(target: SocketTarget): string {
  return target.kind === 'path' ? target.path : `${target.host}:${target.port}`;
}

/** Node's error code → a sentence a user can act on. One table. */
const ERROR_HINTS: Readonly<Record<string, (where: string) => string>> = {
  ENOENT: (w) => `no socket at ${w} (ENOENT): Roo Code is not listening there`,
  ECONNREFUSED: (w) => `connection refused at ${w} (ECONNREFUSED): nothing is listening (a stale socket file, or Roo Code is not running)`,
  ENOTSOCK: (w) => `${w} is not a socket (ENOTSOCK)`,
  EACCES: (w) => `permission denied opening ${w} (EACCES)`,
  ECONNRESET: (w) => `Roo Code reset the connection at ${w} (ECONNRESET)`,
  ETIMEDOUT: (w) => `connecting to ${w} timed out (ETIMEDOUT)`,
  EHOSTUNREACH: (w) => `host unreachable for ${w} (EHOSTUNREACH)`,
};

function describeError(err: Error, where: string): string {
  const code = (err as NodeJS.ErrnoException).code;
  const hint = code === undefined ? undefined : ERROR_HINTS[code];
  return hint ? hint(where) : `${code ?? 'error'} on ${where}: ${err.message}`;
}

interface Attempt { socket: Socket; failure: string | null; refused: boolean }

export class RooConnection {
  readonly #o: ConnectionOptions;
  readonly #where: string;
  readonly #decoder: FrameDecoder;
  #state: ConnectionState = 'idle';
  #socket: Socket | null = null;
  #timer: NodeJS.Timeout | null = null;
  #ack: AckData | null = null;
  #attempts = 0;
  #acks = 0;
  #lastError: string | null = null;
  #closed: Promise<void> | null = null;

  constructor(options: ConnectionOptions) {
    this.#o = options;
    this.#where = describeTarget(options.target);
    this.#decoder = new FrameDecoder(options.maxFrameBytes);
  }

  get state(): ConnectionState { return this.#state; }
  get ack(): AckData | null { return this.#ack; }
  /** Failed attempts since the last successful Ack (0 while ready). */
  get reconnectAttempts(): number { return this.#attempts; }
  /** How many times a peer has acked since start: 2 or more means at least one reconnect succeeded. */
  get connections(): number { return this.#acks; }
  get lastError(): string | null { return this.#lastError; }
  get where(): string { return this.#where; }

  /** Starts connecting in the background; returns at once. */
  start(): void {
    if (this.#state === 'idle') this.#connect();
  }

  /** Writes one message when ready; false when there is no acked connection to write to. */
  send(message: IpcMessage): boolean {
    const socket = this.#socket;
    if (this.#state !== 'ready' || socket === null || !socket.writable) return false;
    socket.write(encodeFrame(message));
    return true;
  }

  /** Stops for good: cancels any pending retry and waits for the socket to finish closing. */
  close(): Promise<void> {
    if (this.#closed) return this.#closed;
    this.#state = 'closed';
    this.#clearTimer();
    const socket = this.#socket;
    this.#closed = socket === null || socket.destroyed
      ? Promise.resolve()
      : new Promise<void>((resolve) => { socket.once('close', () => resolve()); socket.destroy(); });
    return this.#closed;
  }

  #connect(): void {
    this.#state = 'connecting';
    this.#decoder.reset();
    const t = this.#o.target;
    const socket = t.kind === 'path'
      ? createConnection({ path: platformSocketPath(t.path) })
      : createConnection({ host: t.host, port: t.port });
    this.#socket = socket;
    // The first cause seen for this attempt wins: a handshake timeout or a socket error.
    const attempt: Attempt = { socket, failure: null, refused: false };
    socket.on('connect', () => this.#onConnect(attempt));
    socket.on('data', (chunk: Buffer) => { if (socket === this.#socket) this.#onData(chunk); });
    socket.on('error', (err: Error) => {
      attempt.failure ??= describeError(err, this.#where);
      attempt.refused = (err as NodeJS.ErrnoException).code === 'ECONNREFUSED';
    });
    socket.on('close', () => this.#onClose(attempt));
  }

  #onConnect(attempt: Attempt): void {
    if (attempt.socket !== this.#socket || this.#state === 'closed') return;
    this.#state = 'handshaking';
    const ms = this.#o.handshakeTimeoutMs;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      attempt.failure ??= `${this.#where} accepted the connection but never sent an Ack within ${ms} ms`;
      this.#o.log.warn(attempt.failure);
      attempt.socket.destroy();
    }, ms);
    this.#timer.unref();
  }

  #onData(chunk: Buffer): void {
    for (const frame of this.#decoder.push(chunk)) {
      if (frame.kind === 'oversize') {
        this.#o.log.warn(`discarded an IPC frame of ${frame.bytes} bytes (limit ${this.#o.maxFrameBytes})`);
        continue;
      }
      const parsed = parseFrame(frame.text, this.#o.maxEventBytes);
      if (!parsed.ok) {
        this.#o.log.warn(`skipped an IPC frame: ${parsed.reason}`, { preview: frame.text.slice(0, 120) });
        continue;
      }
      if (parsed.warning !== undefined) this.#o.log.warn(parsed.warning);
      // A truncated event keeps only a short marker, which is what it then weighs.
      this.#onMessage(parsed.message, parsed.warning === undefined ? frame.text.length : 256);
    }
  }

  #onMessage(message: IpcMessage, bytes: number): void {
    if (this.#state === 'closed') return;
    if (message.type === 'Ack') {
      this.#clearTimer();
      if (this.#ack) this.#o.log.info(`Roo Code re-acked: clientId ${this.#ack.clientId} → ${message.data.clientId}`);
      this.#ack = message.data;
      this.#state = 'ready';
      this.#attempts = 0;
      this.#acks += 1;
      this.#lastError = null;
      this.#o.handlers.onReady(message.data);
    } else if (message.type === 'TaskEvent') {
      this.#o.handlers.onEvent(message.data, bytes);
    } else {
      this.#o.log.debug('ignored a TaskCommand sent by the server side');
    }
  }

  #onClose(attempt: Attempt): void {
    if (attempt.socket !== this.#socket) return;
    this.#socket = null;
    this.#clearTimer();
    const was = this.#state;
    this.#ack = null;
    const reason = attempt.failure ?? (was === 'ready'
      ? `Roo Code closed the connection at ${this.#where}`
      : `${this.#where} closed the connection before sending an Ack`);
    const t = this.#o.target;
    const needsStat = attempt.refused && t.kind === 'path';
    if (!needsStat) this.#lastError = reason;
    if (was !== 'closed') this.#state = 'waiting';
    if (was === 'ready') {
      this.#o.log.warn(`lost the Roo Code connection: ${reason}`);
      this.#o.handlers.onDown(reason);
    }
    if (this.#state !== 'waiting') return;
    if (!needsStat) { this.#o.handlers.onAttemptFailed?.(); this.#scheduleReconnect(); return; }
    // Linux answers ECONNREFUSED both for a stale socket and for a regular file; a stat tells them apart.
    stat(t.path, (err, st) => {
      if (this.#state !== 'waiting') return;
      this.#lastError = !err && !st.isSocket()
        ? `${t.path} is not a socket (it is a ${st.isDirectory() ? 'directory' : 'regular file'}); ` +
          'point the socket path at the one Roo Code creates'
        : reason;
      this.#o.handlers.onAttemptFailed?.();
      this.#scheduleReconnect();
    });
  }

  #scheduleReconnect(): void {
    this.#attempts += 1;
    const delay = backoffDelay(this.#attempts, this.#o.backoff.initialMs, this.#o.backoff.maxMs, this.#o.random);
    this.#o.log.debug(`reconnecting to ${this.#where} in ${delay} ms (attempt ${this.#attempts})`, { lastError: this.#lastError });
    this.#timer = setTimeout(() => { this.#timer = null; if (this.#state === 'waiting') this.#connect(); }, delay);
    this.#timer.unref();
  }

  #clearTimer(): void {
    if (this.#timer !== null) { clearTimeout(this.#timer); this.#timer = null; }
  }
}
