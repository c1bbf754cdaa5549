// The Roo Code IPC bridge: one background connection, the poll queues, the push callback, and
// request/response matching for the Get* queries. It never blocks startup and never writes stdout.
import type { Logger } from '../log.js';
import { ValidationError } from '../rpc/errors.js';
import { RooConnection, type ConnectionState, type SocketTarget } from './roo-socket.js';
import {
  EventQueues, EventWaiters, isPartialMessage, QUERIES, TASK_START_EVENTS, taskIdOf,
  type PollResult, type QueryKind, type RooEvent,
} from './events.js';
import { DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_FRAME_BYTES, taskCommand, type TaskCommandName, type TaskEventData } from './frames.js';

export type { RooEvent } from './events.js';

export interface BridgeOptions {
  socketPath: string | null;
  host: string | null;
  port: number | null;
  queueLimit: number;
  queryTimeoutMs: number;
  maxFrameBytes?: number;
  /**
   * A TaskEvent frame larger than this keeps its name but its payload becomes a truncation marker;
   * a poll returns no more than this many bytes of events (default 4 MiB).
   */
  maxEventBytes?: number;
  /** Bytes of events each poll queue holds before the oldest are dropped (default 32 MiB). */
  queueBytes?: number;
  /** How long a peer may stay silent after accepting before it is dropped and retried (default 5 s). */
  handshakeTimeoutMs?: number;
  /** Reconnect backoff (default 100 ms doubling to 10 s). */
  backoff?: { initialMs: number; maxMs: number };
  log: Logger;
  onEvent?: (e: RooEvent) => void;
}

export interface BridgeStatus {
  enabled: boolean;
  connected: boolean;
  state: ConnectionState | 'disabled';
  target: string | null;
  clientId: string | null;
  serverPid: number | null;
  serverPpid: number | null;
  reconnectAttempts: number;
  connections: number;
  queueLimit: number;
  queued: { messages: number; other: number };
  dropped: { messages: number; other: number };
  pendingWaits: number;
  lastError: string | null;
}

export interface StartTaskRequest {
  text: string;
  images?: string[];
  configuration?: Record<string, unknown>;
  newTab?: boolean;
  waitForStart?: boolean;
}
export interface StartTaskOutcome { clientId: string; taskId: string | null; startEvent: string | null; timedOut: boolean }

/** How long a call waits for the very first connection attempt to end. */
const FIRST_CONTACT_GRACE_MS = 1500;

const ENABLE_HINT = 'Roo Code opens its IPC socket only when VS Code is launched with ROO_CODE_IPC_SOCKET_PATH=<path> ' +
  'in its environment; give this server the same path (ROO_CODE_IPC_SOCKET_PATH or ipc.socket_path).';

interface SharedQuery { promise: Promise<RooEvent>; controller: AbortController; users: number; settled: boolean }

function targetOf(o: BridgeOptions): SocketTarget | null {
  if (o.socketPath) return { kind: 'path', path: o.socketPath };
  if (o.host && o.port !== null) return { kind: 'tcp', host: o.host, port: o.port };
  return null;
}

/** Resolves with `promise` unless `signal` aborts first; never leaves a listener behind. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined, onAbort: () => Error): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(onAbort());
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(onAbort());
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (v) => { signal.removeEventListener('abort', abort); resolve(v); },
      (e: unknown) => { signal.removeEventListener('abort', abort); reject(e); },
    );
  });
}

/**
 * Ordering: events are handled in arrival order, one at a time: queued, then matched against
 * waiters, then pushed through onEvent. Every waiter fails at once when the connection drops, so no
 * call outlives the socket it was sent on. Identical concurrent queries share one command and one wait.
 */
export class RooBridge {
  readonly #o: BridgeOptions;
  readonly #target: SocketTarget | null;
  readonly #conn: RooConnection | null;
  readonly #queues: EventQueues;
  readonly #waiters = new EventWaiters();
  readonly #queries = new Map<QueryKind, SharedQuery>();
  readonly #firstContactWaiters: (() => void)[] = [];

  constructor(options: BridgeOptions) {
    if (!Number.isInteger(options.queueLimit) || options.queueLimit <= 0) throw new TypeError(`queueLimit must be a positive integer, got ${options.queueLimit}`);
    if (!(options.queryTimeoutMs > 0)) throw new TypeError(`queryTimeoutMs must be positive, got ${options.queryTimeoutMs}`);
    this.#o = options;
    this.#target = targetOf(options);
    this.#queues = new EventQueues(options.queueLimit, options.queueBytes ?? 32 * 1024 * 1024);
    this.#conn = this.#target === null ? null : new RooConnection({
      target: this.#target,
      maxFrameBytes: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
      maxEventBytes: this.#maxEventBytes,
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? 5000,
      backoff: options.backoff ?? { initialMs: 100, maxMs: 10_000 },
      random: Math.random,
      log: options.log,
      handlers: {
        onReady: (ack) => {
          options.log.info(`connected to Roo Code (clientId ${ack.clientId}, pid ${ack.pid})`);
          this.#firstContactDone();
        },
        onAttemptFailed: () => this.#firstContactDone(),
        onEvent: (event, bytes) => this.#onEvent(event, bytes),
        onDown: (reason) => this.#waiters.failAll(() => new ValidationError(`Lost the connection to Roo Code: ${reason}`, this.#errorData())),
      },
    });
  }

  /**
   * Resolves once the very first connection attempt has ended (acked or failed), or after a short
   * grace: a call made while the server is still starting should not fail just because the
   * socket was not dialled yet. Once any attempt has ended, calls fail at once while disconnected.
   */
  firstContact(): Promise<void> {
    if (!this.#beforeFirstContact()) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, FIRST_CONTACT_GRACE_MS);
      timer.unref();
      this.#firstContactWaiters.push(() => { clearTimeout(timer); resolve(); });
    });
  }

  #beforeFirstContact(): boolean {
    const c = this.#conn;
    return c !== null && c.state !== 'ready' && c.lastError === null && c.connections === 0 && c.reconnectAttempts === 0;
  }

  #firstContactDone(): void {
    for (const wake of this.#firstContactWaiters.splice(0)) wake();
  }

  get enabled(): boolean { return this.#conn !== null; }
  get ready(): boolean { return this.#conn?.state === 'ready'; }

  /** Begins connecting in the background (no-op when no socket is configured); returns at once. */
  start(): void {
    if (this.#conn === null) { this.#o.log.debug('Roo Code IPC bridge disabled: no socket path or host/port configured'); return; }
    this.#conn.start();
  }

  async close(): Promise<void> {
    this.#waiters.failAll(() => new ValidationError('The Roo Code IPC bridge is shutting down'));
    await this.#conn?.close();
  }

  status(): BridgeStatus {
    const c = this.#conn;
    const ack = c?.ack ?? null;
    return {
      enabled: c !== null,
      connected: c?.state === 'ready',
      state: c?.state ?? 'disabled',
      target: c?.where ?? null,
      clientId: ack?.clientId ?? null,
      serverPid: ack?.pid ?? null,
      serverPpid: ack?.ppid ?? null,
      reconnectAttempts: c?.reconnectAttempts ?? 0,
      connections: c?.connections ?? 0,
      queueLimit: this.#o.queueLimit,
      queued: { messages: this.#queues.messages.size, other: this.#queues.other.size },
      dropped: { messages: this.#queues.messages.dropped, other: this.#queues.other.dropped },
      pendingWaits: this.#waiters.size,
      lastError: c?.lastError ?? null,
    };
  }

  /** Sends one fire-and-forget command; returns the clientId it carried. Throws when not connected. */
  send(commandName: TaskCommandName, data?: unknown): string {
    const clientId = this.#requireReady();
    if (!this.#conn?.send(taskCommand(clientId, commandName, data))) throw this.#notReadyError();
    return clientId;
  }

  /** Sends a Get* command and resolves with its response payload; identical concurrent calls share one wait. */
  async query(kind: QueryKind, signal?: AbortSignal): Promise<unknown> {
    const { command, response } = QUERIES[kind];
    if (this.#beforeFirstContact()) await this.firstContact();
    this.#requireReady();
    let shared = this.#queries.get(kind);
    if (!shared) {
      const controller = new AbortController();
      const promise = this.#waiters.wait((e) => e.eventName === response, {
        signal: controller.signal,
        timeoutMs: this.#o.queryTimeoutMs,
        onTimeout: () => new ValidationError(
          `Roo Code did not answer ${command} within ${this.#o.queryTimeoutMs} ms (extensions older than v3.48.0 ignore it)`,
          this.#errorData(`Roo Code is connected but sent no ${response} within ${this.#o.queryTimeoutMs} ms; it answers ${command} from v3.48.0 on.`)),
        onAbort: () => new ValidationError(`${command} was cancelled`),
      });
      const entry: SharedQuery = { promise, controller, users: 0, settled: false };
      const finish = (): void => { entry.settled = true; if (this.#queries.get(kind) === entry) this.#queries.delete(kind); };
      promise.then(finish, finish);
      this.#queries.set(kind, entry);
      shared = entry;
      try {
        this.send(command);
      } catch (err) {
        controller.abort();
        throw err;
      }
    }
    const entry = shared;
    entry.users += 1;
    try {
      const event = await raceAbort(entry.promise, signal, () => new ValidationError(`${command} was cancelled`));
      return event.payload;
    } finally {
      entry.users -= 1;
      // The last interested caller left before the answer: stop waiting for it.
      if (entry.users === 0 && !entry.settled) entry.controller.abort();
    }
  }

  /** Starts a task; with waitForStart, also waits (up to the query timeout) for Roo to announce it. */
  async startTask(req: StartTaskRequest, signal?: AbortSignal): Promise<StartTaskOutcome> {
    if (this.#beforeFirstContact()) await this.firstContact();
    // Roo's schema requires `configuration`; a command without it is dropped silently.
    const data: Record<string, unknown> = { configuration: req.configuration ?? {}, text: req.text };
    if (req.images !== undefined) data.images = req.images;
    if (req.newTab !== undefined) data.newTab = req.newTab;
    if (!req.waitForStart) return { clientId: this.send('StartNewTask', data), taskId: null, startEvent: null, timedOut: false };
    this.#requireReady();
    const timedOut = new ValidationError('timed out');
    // Registered before sending so an immediate reply cannot slip past.
    const started = this.#waiters.wait((e) => TASK_START_EVENTS.includes(e.eventName), {
      timeoutMs: this.#o.queryTimeoutMs,
      onTimeout: () => timedOut,
      onAbort: () => new ValidationError('StartNewTask wait was cancelled'),
      ...(signal ? { signal } : {}),
    });
    let clientId: string;
    try {
      clientId = this.send('StartNewTask', data);
    } catch (err) {
      started.catch(() => undefined);
      throw err;
    }
    try {
      const event = await started;
      return { clientId, taskId: taskIdOf(event), startEvent: event.eventName, timedOut: false };
    } catch (err) {
      if (err === timedOut) return { clientId, taskId: null, startEvent: null, timedOut: true };
      throw err;
    }
  }

  /** Removes and returns up to `limit` `message` events; isPartial describes the last one returned. */
  pollMessages(limit: number): PollResult & { isPartial: boolean } {
    const result = this.#queues.messages.poll(limit, this.#maxEventBytes);
    const last = result.events[result.events.length - 1];
    return { ...result, isPartial: last !== undefined && isPartialMessage(last) };
  }

  /** Removes and returns up to `limit` events of every other kind. */
  pollOther(limit: number): PollResult {
    return this.#queues.other.poll(limit, this.#maxEventBytes);
  }

  get #maxEventBytes(): number { return this.#o.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES; }

  #onEvent(data: TaskEventData, bytes: number): void {
    const event: RooEvent = { eventName: data.eventName };
    if (data.payload !== undefined) event.payload = data.payload;
    if (data.taskId !== undefined) event.taskId = data.taskId;
    this.#queues.push(event, bytes);
    this.#waiters.deliver(event);
    if (!this.#o.onEvent) return;
    try {
      this.#o.onEvent(event);
    } catch (err) {
      this.#o.log.error('the Roo event callback threw', err);
    }
  }

  #requireReady(): string {
    const clientId = this.#conn?.state === 'ready' ? this.#conn.ack?.clientId : undefined;
    if (clientId === undefined) throw this.#notReadyError();
    return clientId;
  }

  #notReadyError(): ValidationError {
    if (this.#conn === null) {
      return new ValidationError(`The Roo Code IPC bridge is not enabled. ${ENABLE_HINT}`, {
        message: `No socket is configured. ${ENABLE_HINT} For TCP, set ipc.host and ipc.port instead.`,
        state: 'disabled',
      });
    }
    const why = this.#conn.lastError ?? (this.#conn.state === 'handshaking' ? 'waiting for the Ack' : 'still connecting');
    return new ValidationError(`Not connected to Roo Code at ${this.#conn.where}: ${why}. ${ENABLE_HINT}`, this.#errorData());
  }

  #errorData(message?: string): Record<string, unknown> {
    const c = this.#conn;
    return {
      message: message ?? `${c?.lastError ?? 'The connection is not ready'}. ${ENABLE_HINT} The bridge keeps retrying in the background.`,
      target: c?.where ?? null,
      state: c?.state ?? 'disabled',
      last_error: c?.lastError ?? null,
      reconnect_attempts: c?.reconnectAttempts ?? 0,
    };
  }
}
