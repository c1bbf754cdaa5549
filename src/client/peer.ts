// The client's JSON-RPC peer over one server process: request ids, pending answers, timeouts with
// notifications/cancelled, server→client requests and notification fan-out. It never writes stdout.

import { encodeMessage, LineDecoder } from './framing.js';
import { ClientClosedError, McpAbortError, McpError, McpTimeoutError, ServerExitedError } from './errors.js';
import type { CloseOptions, CloseResult, ExitInfo } from './process.js';
import { isRecord as isObject } from '../rpc/jsonrpc.js';
import { depthMessage, MAX_JSON_DEPTH, tooDeep } from '../rpc/json-bounds.js';

export type JsonObject = Record<string, unknown>;

/** What the peer needs from a transport (a spawned process, or an HTTP endpoint): lines out, lines in, the end. */
export interface Channel {
  readonly output: { on(event: 'data', fn: (chunk: Buffer) => void): unknown; on(event: 'end', fn: () => void): unknown };
  readonly closed: Promise<ExitInfo>;
  readonly stderrTail: string;
  readonly pid: number | undefined;
  /** Sends one framed message; false when the transport is already closed. */
  write(line: string): boolean;
  close(options?: CloseOptions): Promise<CloseResult>;
}
export type NotificationHandler = (params: JsonObject, method: string) => void;
/** Answers one server→client request; throw McpError to answer with an error. */
export type ServerRequestHandler = (params: JsonObject) => JsonObject | Promise<JsonObject>;

export interface RequestOptions {
  /** Rejects with McpTimeoutError after this many ms (0 or Infinity: no limit). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface Pending {
  method: string;
  resolve(result: JsonObject): void;
  reject(err: Error): void;
}

const isId = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

/**
 * How it works: each request gets the next integer id and a Pending entry; the line handler
 * settles it by id. A timer or the caller's signal removes the entry, tells the server with
 * notifications/cancelled, and rejects — a late answer then finds no entry and is ignored. When
 * the process ends, every entry left is rejected with the exit status and stderr tail.
 */
export class RpcPeer {
  readonly #proc: Channel;
  readonly #decoder = new LineDecoder();
  readonly #pending = new Map<number, Pending>();
  readonly #subscribers = new Map<string, Set<NotificationHandler>>();
  readonly #handlers = new Map<string, ServerRequestHandler>();
  readonly #onProtocolError: (message: string) => void;
  readonly #defaultTimeoutMs: number;
  #nextId = 1;
  #ended: Error | undefined;
  /** The per-request _meta of a 2026-07-28 connection (version, capabilities, client info); null on legacy ones. */
  envelope: JsonObject | null = null;

  constructor(proc: Channel, options: { defaultTimeoutMs: number; onProtocolError?: (message: string) => void }) {
    this.#proc = proc;
    this.#defaultTimeoutMs = options.defaultTimeoutMs;
    this.#onProtocolError = options.onProtocolError ?? (() => undefined);
    proc.output.on('data', (chunk: Buffer) => this.#onLines(this.#decoder.push(chunk)));
    proc.output.on('end', () => this.#onLines(this.#decoder.end()));
    void proc.closed.then((exit) => {
      this.#fail(new ServerExitedError(exit.code, exit.signal, proc.stderrTail, 'before answering'));
    });
  }

  /** Registers the answer to a server→client request method (ping, roots/list, …). */
  handle(method: string, handler: ServerRequestHandler): void {
    this.#handlers.set(method, handler);
  }

  /** Subscribes to a notification method, or '*' for all; returns the unsubscribe function. */
  onNotification(method: string, handler: NotificationHandler): () => void {
    let set = this.#subscribers.get(method);
    if (set === undefined) this.#subscribers.set(method, (set = new Set()));
    set.add(handler);
    return () => {
      set.delete(handler);
    };
  }

  notify(method: string, params?: JsonObject): void {
    this.#proc.write(encodeMessage(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }));
  }

  request(method: string, params?: JsonObject, options: RequestOptions = {}): Promise<JsonObject> {
    if (this.#ended !== undefined) return Promise.reject(this.#ended);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(new McpAbortError(method, signal.reason));
    const id = this.#nextId++;
    const timeoutMs = options.timeoutMs ?? this.#defaultTimeoutMs;
    return new Promise<JsonObject>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (): void => {
        this.#pending.delete(id);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const giveUp = (err: Error, reason: string): void => {
        if (!this.#pending.has(id)) return;
        settle();
        // The spec forbids cancelling initialize; the caller stops the server instead.
        if (method !== 'initialize') this.notify('notifications/cancelled', { requestId: id, reason });
        reject(err);
      };
      const onAbort = (): void => giveUp(new McpAbortError(method, signal?.reason), 'aborted by the client');
      this.#pending.set(id, {
        method,
        resolve: (result) => {
          settle();
          resolve(result);
        },
        reject: (err) => {
          settle();
          reject(err);
        },
      });
      if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => giveUp(new McpTimeoutError(method, timeoutMs), `timed out after ${timeoutMs} ms`), timeoutMs);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      const withMeta = this.envelope === null ? params : { ...params, _meta: { ...this.envelope, ...(isObject(params?._meta) ? params._meta : {}) } };
      const message = withMeta === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: withMeta };
      if (!this.#proc.write(encodeMessage(message))) {
        this.#pending.get(id)?.reject(this.#ended ?? new ServerExitedError(null, null, this.#proc.stderrTail, 'before the request could be sent'));
      }
    });
  }

  /** Rejects every waiting request and refuses new ones (used by close() and on process exit). */
  shutdown(): void {
    for (const [, p] of this.#pending) p.reject(new ClientClosedError(p.method));
    this.#ended ??= new ClientClosedError('request');
  }

  #fail(err: Error): void {
    this.#ended ??= err;
    for (const [, p] of this.#pending) p.reject(err);
  }

  #onLines(lines: Array<string | { oversize: number }>): void {
    for (const line of lines) {
      if (typeof line !== 'string') {
        this.#onProtocolError(`dropped a ${line.oversize}-byte line from the server (too long)`);
        continue;
      }
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        this.#onProtocolError(`server wrote a line that is not JSON: ${line.slice(0, 200)}`);
        continue;
      }
      if (line.length > MAX_JSON_DEPTH && tooDeep(message)) {
        this.#onProtocolError(`server wrote a line in which ${depthMessage('the message')}: ${line.slice(0, 200)}`);
        continue;
      }
      this.#route(message);
    }
  }

  #route(message: unknown): void {
    if (!isObject(message) || message.jsonrpc !== '2.0') {
      this.#onProtocolError(`server wrote a non-JSON-RPC message: ${JSON.stringify(message).slice(0, 200)}`);
      return;
    }
    const params = isObject(message.params) ? message.params : {};
    if (typeof message.method === 'string') {
      if (isId(message.id)) void this.#answer(message.id, message.method, params);
      else this.#dispatch(message.method, params);
      return;
    }
    if (typeof message.id !== 'number') {
      this.#onProtocolError(`server answered an id this client never sent: ${JSON.stringify(message.id)}`);
      return;
    }
    const pending = this.#pending.get(message.id);
    if (pending === undefined) return; // timed out or cancelled: a late answer is expected, not an error
    if (isObject(message.error)) {
      const { code, message: text, data } = message.error;
      pending.reject(new McpError(typeof code === 'number' ? code : -32603, typeof text === 'string' ? text : 'error without a message', data, pending.method));
    } else if (isObject(message.result)) {
      pending.resolve(message.result);
    } else {
      pending.reject(new McpError(-32603, 'response carried neither an object result nor an error', message, pending.method));
    }
  }

  #dispatch(method: string, params: JsonObject): void {
    for (const key of [method, '*']) {
      for (const handler of this.#subscribers.get(key) ?? []) {
        try {
          handler(params, method);
        } catch (err) {
          this.#onProtocolError(`notification handler for ${method} threw: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }
  }

  async #answer(id: string | number, method: string, params: JsonObject): Promise<void> {
    const handler = this.#handlers.get(method);
    let reply: JsonObject;
    if (handler === undefined) {
      reply = { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } };
    } else {
      try {
        reply = { jsonrpc: '2.0', id, result: await handler(params) };
      } catch (err) {
        const wire = err instanceof McpError ? { code: err.code, message: err.message } : { code: -32603, message: 'Internal error' };
        reply = { jsonrpc: '2.0', id, error: wire };
      }
    }
    this.#proc.write(encodeMessage(reply));
  }
}
