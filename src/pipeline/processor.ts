// The message processor: lifecycle gating, dispatch, cancellation and the guarantee of exactly
// one response per request id. It reads the incoming queue and writes only to the outgoing queue.
import { AsyncQueue } from './queue.js';
import { InvalidRequestError, MethodNotFoundError, ParseError, RpcError, type WireError } from '../rpc/errors.js';
import { classify, isRecord, SplicedLine, type Outgoing, type Params, type Request, type RequestId } from '../rpc/jsonrpc.js';
import { PreSerialized, toWireError, type MethodTable, type RequestContext, type RequestEra } from '../rpc/dispatch.js';
import { depthMessage } from '../rpc/json-bounds.js';
import { TooDeep, type Incoming } from './incoming.js';
import { encodeLine, isRefusal, type WireLine } from './outbound.js';
import { AnswerLine } from './answers.js';
import type { Lifecycle } from '../mcp/lifecycle.js';
import type { Logger } from '../log.js';

/**
 * A running request and the context its handler sees, in one object (one allocation per request;
 * the signal getter lives on the prototype). Its AbortController is made only when a handler asks
 * for the signal. `aborted` stops the work; `dropped` (a client's cancellation) also suppresses the answer.
 */
class Call implements RequestContext {
  controller: AbortController | null = null;
  aborted: Error | null = null;
  dropped = false;
  answered = false;

  constructor(
    readonly id: RequestId,
    readonly method: string,
    readonly progressToken: string | number | undefined,
    readonly stateless: RequestEra | null,
    readonly owner: unknown,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.aborted);
    }
    return this.controller.signal;
  }

  abort(reason: Error, drop: boolean): void {
    if (drop) this.dropped = true;
    this.aborted ??= reason;
    this.controller?.abort(reason);
  }
}

export interface ProcessorOptions {
  incoming: AsyncQueue<Incoming>;
  /** Serialised lines for the writer; the processor is the only producer. */
  outgoing: AsyncQueue<WireLine>;
  lifecycle: Lifecycle;
  methods: MethodTable;
  strict: boolean;
  maxInFlight: number;
  log: Logger;
  /**
   * Largest message sent (server.max_message_bytes; default: no limit). A larger answer becomes a
   * -32603 error for its id; a larger notification is dropped with a warning.
   */
  maxMessageBytes?: number;
  /** After input ends, how long in-flight handlers may run before their signals abort (default 1000 ms). */
  shutdownGraceMs?: number;
  /** Handed to every handler as `ctx.owner` (the connection record of whoever opened this one). */
  owner?: unknown;
}

/*
 * Ordering and concurrency, stated once:
 * - Messages are taken from the incoming queue one at a time, in arrival order, and each handler
 *   is started before the next message is looked at. A handler that finishes synchronously has
 *   its response queued before the next message is dispatched, so such responses keep request order.
 * - Handlers that await (file I/O, persistence, the IPC bridge, requests to the client) run
 *   concurrently, at most `maxInFlight` at once; each response is queued when its handler ends.
 *   Clients match responses by id, as JSON-RPC intends. Messages already queued are taken without
 *   yielding (at most the incoming queue's capacity), so those continuations run once the queue
 *   is empty or the loop waits for a slot or for room in the output.
 * - Because handlers start in arrival order, state changes they make synchronously (e.g. a
 *   session's mode) also apply in arrival order.
 * - Backpressure: queuing a response awaits room in the outgoing queue; while any answer waits
 *   for room, no message that starts work is taken, the incoming queue fills and the reader stops
 *   reading stdin. Answers wait in turn and are serialised only when their turn comes, so at most
 *   one serialised answer waits beside the queue, however many handlers finish meanwhile.
 * - A cancelled request's signal is aborted and its response, whenever it comes, is dropped.
 * - Every message is serialised here, before it is queued, so its size is known: the outgoing
 *   queue is bounded in bytes as well as in count, and an answer over maxMessageBytes is swapped
 *   for an error carrying the same id (exactly one answer per id still holds).
 */
export class Processor {
  readonly #o: ProcessorOptions;
  /** Requests whose handlers are still running (asynchronously), by id: the ones a cancellation can reach. */
  readonly #inFlight = new Map<RequestId, Call>();
  /** Background answers (async handlers, batches) not yet queued: counted for maxInFlight and the final drain. */
  #busy = 0;
  #idle: (() => void) | null = null;
  readonly #clientWaits = new Map<string, { resolve(v: unknown): void; reject(e: Error): void }>();
  #nextServerId = 1;
  #slotFreed: (() => void) | null = null;
  readonly #limit: number;
  readonly #answers: AnswerLine;

  constructor(options: ProcessorOptions) {
    this.#o = options;
    this.#limit = options.maxMessageBytes ?? Number.POSITIVE_INFINITY;
    this.#answers = new AnswerLine(options.outgoing, this.#limit, options.log, () => this.#wake());
  }

  /** Runs until the incoming queue is closed and drained, then lets in-flight work finish. */
  async run(): Promise<void> {
    const { incoming, maxInFlight } = this.#o;
    for (;;) {
      // What is queued already is taken without a promise per message; only an empty queue is awaited.
      const item = incoming.poll() ?? await incoming.shift();
      if (item === undefined) break;
      // Only a message that may start a handler waits for a slot: cancellations and the client's
      // answers must get through, since they are what frees slots.
      while ((this.#busy >= maxInFlight || this.#answers.waiting > 0) && startsWork(item)) {
        await new Promise<void>((resolve) => { this.#slotFreed = resolve; });
      }
      const waiting = this.#handle(item);
      if (waiting !== undefined) await waiting;
    }
    this.#o.lifecycle.close();
    // Input ended: in-flight work gets a short grace, then is told to stop, so the server exits
    // promptly even when a handler waits on something slow (e.g. an unanswered Roo query).
    const grace = setTimeout(() => this.abortAll(), this.#o.shutdownGraceMs ?? 1000);
    if (this.#busy > 0) await new Promise<void>((resolve) => { this.#idle = resolve; });
    clearTimeout(grace);
    for (const wait of this.#clientWaits.values()) wait.reject(new Error('connection closed'));
    this.#clientWaits.clear();
  }

  /** Tells every in-flight request to stop (at shutdown, after a grace); their outcomes are still sent. */
  abortAll(): void {
    for (const call of this.#inFlight.values()) call.abort(new Error('server shutting down'), false);
  }

  /** Queues a notification without waiting; false when the client is not keeping up. */
  notify(method: string, params?: Params): boolean {
    if (this.#o.lifecycle.state !== 'ready') return false;
    const out = encodeLine(params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method }, this.#limit);
    if (isRefusal(out)) {
      // Only the method and the reason: the payload itself is what could not be sent.
      this.#o.log.warn(`dropped a ${method} notification: ${out.problem}`);
      return false;
    }
    return this.#o.outgoing.tryPush(out);
  }

  /** Sends a request to the client and resolves with its result (rejects on error or timeout). */
  requestClient(method: string, params: Params | undefined, timeoutMs: number): Promise<unknown> {
    const id = `srv-${this.#nextServerId++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#clientWaits.delete(JSON.stringify(id));
        this.notify('notifications/cancelled', { requestId: id, reason: 'timed out' });
        reject(new Error(`${method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref();
      this.#clientWaits.set(JSON.stringify(id), {
        resolve: (v) => { clearTimeout(timer); resolve(v); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      });
      const out = encodeLine(params ? { jsonrpc: '2.0', id, method, params } : { jsonrpc: '2.0', id, method }, this.#limit);
      if (isRefusal(out) || !this.#o.outgoing.tryPush(out)) {
        const wait = this.#clientWaits.get(JSON.stringify(id));
        this.#clientWaits.delete(JSON.stringify(id));
        wait?.reject(new Error(isRefusal(out) ? `${method} not sent: ${out.problem}` : 'output queue full'));
      }
    });
  }

  /** Starts one message's work; returns a promise only when its answer must wait for room in the output. */
  #handle(item: Incoming): Promise<void> | undefined {
    if (item.kind === 'parse-error') {
      return this.#send(errorMessage(null, new ParseError('Parse error', item.detail).toWire()));
    }
    if (item.kind === 'oversize') {
      const detail = `message of ${item.bytes} bytes exceeds the limit of ${item.limit} bytes (server.max_message_bytes)`;
      // The id read from the line's first bytes, when the client wrote it there: its wait ends now.
      return this.#send(errorMessage(item.id ?? null, new InvalidRequestError('Invalid Request: message too large', detail).toWire()));
    }
    if (item.kind === 'too-deep') {
      const answer = this.#tooDeep(new TooDeep(item.id, item.response, item.limit));
      return answer === undefined ? undefined : this.#send(answer);
    }
    const { value } = item;
    if (!Array.isArray(value)) {
      const answer = this.#one(value);
      if (answer instanceof Promise) this.#track(answer.then(this.#deliver));
      else if (answer !== undefined) return this.#send(answer);
      return undefined;
    }
    if (value.length === 0) {
      return this.#send(errorMessage(null, new InvalidRequestError('Invalid Request', 'an empty batch is not a request').toWire()));
    }
    if (!this.#o.lifecycle.batchesAllowed) {
      return this.#send(errorMessage(null, new InvalidRequestError('Invalid Request', 'batches are only accepted in a 2025-03-26 session; send one message per line').toWire()));
    }
    if (value.some((v) => isRecord(v) && v.method === 'initialize')) {
      return this.#send(errorMessage(null, new InvalidRequestError('Invalid Request', 'initialize must not be part of a batch').toWire()));
    }
    // A batch is answered as one array once all its requests are done; it runs as one task.
    this.#track(Promise.all(value.map((v) => this.#one(v))).then((all) => {
      const answers = all.filter((a): a is Outgoing => a !== undefined);
      return answers.length === 0 ? undefined : this.#answers.send(answers);
    }));
    return undefined;
  }

  /** Queues an async handler's answer (none for a cancelled request); the promise while it waits for room. */
  readonly #deliver = (answer: Outgoing | undefined): Promise<void> | undefined =>
    (answer === undefined ? undefined : this.#answers.send(answer));

  /** Counts a background task until it has settled (for maxInFlight and for draining at shutdown). */
  #track(task: Promise<unknown>): void {
    this.#busy++;
    task.then(this.#settled, this.#failed);
  }

  readonly #failed = (err: unknown): void => {
    this.#o.log.error('response task failed', err);
    this.#settled();
  };

  readonly #settled = (): void => {
    if (--this.#busy === 0) { const idle = this.#idle; this.#idle = null; idle?.(); }
    this.#wake();
  };

  /** A slot was freed or the output caught up: the run loop looks again. */
  #wake(): void {
    const freed = this.#slotFreed;
    this.#slotFreed = null;
    freed?.();
  }

  /** The answer to a message nested too deep (none for a response: those are never answered). */
  #tooDeep(deep: TooDeep): Outgoing | undefined {
    const detail = `${depthMessage('the message', deep.limit)}; nothing in it was read`;
    if (deep.response) { this.#o.log.warn(`ignored a response from the client: ${detail}`); return undefined; }
    return errorMessage(deep.id, new InvalidRequestError('Invalid Request: message nested too deep', detail).toWire());
  }

  /** Handles one message; resolves with its answer (undefined for notifications and cancelled requests). */
  #one(value: unknown): Promise<Outgoing | undefined> | Outgoing | undefined {
    if (value instanceof TooDeep) return this.#tooDeep(value);
    const c = classify(value);
    switch (c.kind) {
      case 'invalid': return errorMessage(c.id, c.error.toWire());
      case 'notification': this.#notification(c.notification.method, c.notification.params ?? {}); return undefined;
      case 'response': this.#clientResponse(c.response.id, c.response.result, c.response.error); return undefined;
      case 'request': return this.#request(c.request);
    }
  }

  #request(req: Request): Promise<Outgoing | undefined> | Outgoing | undefined {
    const { lifecycle, methods, strict, log } = this.#o;
    // The era gate: a stateless (2026-07-28) request gets its context, or the error that answers it.
    const stateless = lifecycle.admit(req.method, req.params);
    if (stateless instanceof RpcError) return errorMessage(req.id, stateless.toWire());
    if (stateless === null && req.method === 'initialize' && lifecycle.state !== 'awaiting-initialize') {
      return errorMessage(req.id, new InvalidRequestError('Invalid Request: already initialized', 'initialize may be sent once per connection').toWire());
    }
    if (strict && stateless === null && lifecycle.state === 'awaiting-initialize' && req.method !== 'initialize' && req.method !== 'ping') {
      return errorMessage(req.id, new InvalidRequestError('Invalid Request: server not initialized', 'send initialize first (the server runs with --strict)').toWire());
    }
    const handler = methods.requests.get(req.method);
    if (!handler) return errorMessage(req.id, new MethodNotFoundError(req.method).toWire());
    const params = req.params ?? {};
    const meta = isRecord(params._meta) ? params._meta : undefined;
    const token = meta?.progressToken;
    const call = new Call(req.id, req.method, typeof token === 'string' || typeof token === 'number' ? token : undefined, stateless, this.#o.owner);
    let out: unknown;
    try {
      out = handler(params, call);
    } catch (err) {
      return this.#settle(call, undefined, toWireError(err, req.id, req.method, log));
    }
    if (!(out instanceof Promise)) return this.#settle(call, out, undefined);
    // Only a request still running can be cancelled; a synchronous one is answered before any
    // other message is read.
    this.#inFlight.set(req.id, call);
    return out.then(
      (result) => this.#settle(call, result, undefined),
      (err: unknown) => this.#settle(call, undefined, toWireError(err, req.id, req.method, log)),
    );
  }

  /** The answer to a finished request: none when it was cancelled or already answered. */
  #settle(call: Call, result: unknown, error: WireError | undefined): Outgoing | undefined {
    if (this.#inFlight.get(call.id) === call) this.#inFlight.delete(call.id);
    if (call.answered || call.dropped) return undefined;
    call.answered = true;
    return error ? errorMessage(call.id, error) : resultMessage(call.id, result);
  }

  #notification(method: string, params: Params): void {
    if (method === 'notifications/cancelled') {
      const id = params.requestId;
      if (typeof id !== 'string' && typeof id !== 'number') return;
      const call = this.#inFlight.get(id);
      if (!call) return;
      this.#o.log.debug(`request ${JSON.stringify(id)} cancelled by the client`, params.reason);
      call.abort(new Error(typeof params.reason === 'string' ? params.reason : 'cancelled by the client'), true);
      return;
    }
    const handler = this.#o.methods.notifications.get(method);
    if (!handler) { this.#o.log.debug(`ignoring unknown notification ${method}`); return; }
    try { handler(params); } catch (err) { this.#o.log.error(`notification ${method} failed`, err); }
  }

  #clientResponse(id: RequestId | null, result: unknown, error: WireError | undefined): void {
    if (id === null) { this.#o.log.warn('the client sent an error without an id', error); return; }
    const key = JSON.stringify(id);
    const wait = this.#clientWaits.get(key);
    if (!wait) { this.#o.log.debug(`ignoring a response to unknown request ${key}`); return; }
    this.#clientWaits.delete(key);
    if (error) wait.reject(new Error(`client answered ${error.code}: ${error.message}`));
    else wait.resolve(result);
  }

  #send(message: Outgoing): Promise<void> | undefined {
    return this.#answers.send(message);
  }
}

/** Whether a message may start a handler (a request or a batch), so it waits for a free slot. */
function startsWork(item: Incoming): boolean {
  return item.kind === 'value' && (Array.isArray(item.value) || (isRecord(item.value) && 'method' in item.value && 'id' in item.value));
}

function errorMessage(id: RequestId | null, error: WireError): Outgoing {
  return { jsonrpc: '2.0', id, error };
}

function resultMessage(id: RequestId, result: unknown): Outgoing {
  if (result instanceof PreSerialized) {
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
    return { raw: result.encoded ? new SplicedLine(head, result.encoded) : `${head}${result.json}}`, id };
  }
  return { jsonrpc: '2.0', id, result: result ?? {} };
}
