// Unit tests of the message processor (src/pipeline/processor.ts) and the lifecycle table it uses
// (src/mcp/lifecycle.ts). The processor is driven through its real queues with a fake method table.
// "Nothing was written" is checked by a later round trip (a ping answered after it) or by closing
// the input and awaiting run(), which only resolves once every in-flight request has finished.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncQueue } from '../../src/pipeline/queue.js';
import { Processor } from '../../src/pipeline/processor.js';
import type { Incoming } from '../../src/pipeline/incoming.js';
import { lineText, type WireLine } from '../../src/pipeline/outbound.js';
import { SplicedLine } from '../../src/rpc/jsonrpc.js';
import { LATEST_PROTOCOL_VERSION, Lifecycle, PROTOCOL_VERSIONS, atLeast, negotiateVersion } from '../../src/mcp/lifecycle.js';
import { PreSerialized, type NotificationHandler, type RequestContext, type RequestHandler } from '../../src/rpc/dispatch.js';
import { InvalidParamsError, ModeNotFoundError } from '../../src/rpc/errors.js';
import type { Params } from '../../src/rpc/jsonrpc.js';
import type { Logger } from '../../src/log.js';

// ---- helpers ----------------------------------------------------------------------------------

interface LogCall { level: 'debug' | 'info' | 'notice' | 'warn' | 'error'; message: string; data: unknown }

/** A Logger that keeps every call, shared with its children. */
class RecordingLogger implements Logger {
  constructor(readonly calls: LogCall[] = []) {}
  debug(message: string, data?: unknown): void { this.calls.push({ level: 'debug', message, data }); }
  info(message: string, data?: unknown): void { this.calls.push({ level: 'info', message, data }); }
  notice(message: string, data?: unknown): void { this.calls.push({ level: 'notice', message, data }); }
  warn(message: string, data?: unknown): void { this.calls.push({ level: 'warn', message, data }); }
  error(message: string, data?: unknown): void { this.calls.push({ level: 'error', message, data }); }
  child(): Logger { return new RecordingLogger(this.calls); }
}

/** One message as the client would read it. */
interface Wire {
  jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown; result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** Every call of a handler that only finishes when the test says so. */
interface PendingCall {
  params: Params;
  ctx: RequestContext;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  /** Resolves with the abort reason when the request's signal aborts. */
  aborted: Promise<unknown>;
}

function controllable(): { handler: RequestHandler; calls: AsyncQueue<PendingCall>; active: () => number; peak: () => number } {
  const calls = new AsyncQueue<PendingCall>(1000);
  let active = 0;
  let peak = 0;
  const handler: RequestHandler = (params, ctx) => {
    active++;
    peak = Math.max(peak, active);
    return new Promise((resolve, reject) => {
      const aborted = new Promise<unknown>((r) => ctx.signal.addEventListener('abort', () => r(ctx.signal.reason), { once: true }));
      calls.tryPush({ params, ctx, resolve, reject, aborted });
    }).finally(() => { active--; });
  };
  return { handler, calls, active: () => active, peak: () => peak };
}

/**
 * Fails instead of hanging when `p` never settles (a deadlock under test). The timer only bounds
 * the wait; a correct processor settles `p` through promises long before it fires.
 */
async function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`deadlock: ${what} did not happen within ${ms} ms`)), ms);
  });
  try { return await Promise.race([p, deadline]); } finally { clearTimeout(timer); }
}

/** Resolves after all currently queued promise jobs have run (setImmediate follows microtasks). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Options {
  requests?: Record<string, RequestHandler>;
  notifications?: Record<string, NotificationHandler>;
  strict?: boolean;
  maxInFlight?: number;
  incomingCapacity?: number;
  outgoingCapacity?: number;
  maxMessageBytes?: number;
}

function start(opts: Options = {}) {
  const incoming = new AsyncQueue<Incoming>(opts.incomingCapacity ?? 256);
  const outgoing = new AsyncQueue<WireLine>(opts.outgoingCapacity ?? 256);
  const lifecycle = new Lifecycle();
  const log = new RecordingLogger();
  const requests = new Map<string, RequestHandler>([
    // A minimal initialize like the real one: negotiate, then become ready synchronously.
    ['initialize', (params) => {
      lifecycle.protocolVersion = negotiateVersion(params.protocolVersion);
      lifecycle.state = 'ready';
      return { protocolVersion: lifecycle.protocolVersion };
    }],
    ['ping', () => ({})],
    ['echo', (params) => params],
    ...Object.entries(opts.requests ?? {}),
  ]);
  const notifications = new Map<string, NotificationHandler>(Object.entries(opts.notifications ?? {}));
  const processor = new Processor({
    incoming, outgoing, lifecycle, methods: { requests, notifications },
    strict: opts.strict ?? false, maxInFlight: opts.maxInFlight ?? 16, log,
    ...(opts.maxMessageBytes === undefined ? {} : { maxMessageBytes: opts.maxMessageBytes }),
  });
  const done = processor.run();

  const send = (value: unknown): Promise<void> => incoming.push({ kind: 'value', value });
  const request = (id: string | number, method: string, params?: Params): Promise<void> =>
    send(params ? { jsonrpc: '2.0', id, method, params } : { jsonrpc: '2.0', id, method });
  const notify = (method: string, params?: Params): Promise<void> =>
    send(params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method });
  const parse = (m: WireLine): unknown => JSON.parse(lineText(m));
  /** The next message written, parsed as the client would. */
  const next = async (): Promise<Wire> => {
    const m = await outgoing.shift();
    assert.ok(m !== undefined, 'the outgoing queue closed');
    const v = parse(m);
    assert.ok(typeof v === 'object' && v !== null && !Array.isArray(v), `expected one message, got ${m}`);
    return v as Wire;
  };
  const nextBatch = async (): Promise<Wire[]> => {
    const m = await outgoing.shift();
    assert.ok(m !== undefined, 'the outgoing queue closed');
    const v = parse(m);
    assert.ok(Array.isArray(v), `expected a batch array, got ${m}`);
    return v as Wire[];
  };
  /** Sends a ping and asserts it is the very next message written: nothing was written before it. */
  const barrier = async (id: string | number = 'barrier'): Promise<void> => {
    await request(id, 'ping');
    assert.deepEqual(await next(), { jsonrpc: '2.0', id, result: {} });
  };
  /** Ends the input, waits for run() (all in-flight work), and returns what else was written. */
  const finish = async (): Promise<Wire[]> => {
    incoming.close();
    await done;
    return outgoing.takeAvailable(Number.MAX_SAFE_INTEGER).map((m) => parse(m) as Wire);
  };
  const initialize = async (protocolVersion: string = LATEST_PROTOCOL_VERSION): Promise<void> => {
    await request('init', 'initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'test' } });
    const answer = await next();
    assert.equal(answer.id, 'init');
    assert.ok(answer.result !== undefined, 'initialize succeeded');
  };
  return { incoming, outgoing, lifecycle, log, processor, done, send, request, notify, next, nextBatch, barrier, finish, initialize };
}

const errorCode = (m: Wire): number | undefined => m.error?.code;

// ---- lifecycle table --------------------------------------------------------------------------

describe('lifecycle', () => {
  test('lists the supported revisions oldest first, the latest last', () => {
    assert.deepEqual([...PROTOCOL_VERSIONS], ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);
    assert.equal(LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS[PROTOCOL_VERSIONS.length - 1]);
    assert.deepEqual([...PROTOCOL_VERSIONS].sort(), [...PROTOCOL_VERSIONS]);
  });

  test('negotiateVersion echoes a supported revision exactly', () => {
    for (const v of PROTOCOL_VERSIONS) assert.equal(negotiateVersion(v), v);
  });

  test('negotiateVersion answers anything else with the latest revision', () => {
    for (const v of ['2023-01-01', '2099-01-01', '2025-03-26 ', '', undefined, null, 20250326, {}]) {
      assert.equal(negotiateVersion(v), LATEST_PROTOCOL_VERSION, `for ${String(v)}`);
    }
  });

  test('atLeast compares revisions by date', () => {
    assert.equal(atLeast('2025-06-18', '2025-06-18'), true);
    assert.equal(atLeast('2025-11-25', '2025-06-18'), true);
    assert.equal(atLeast('2025-03-26', '2025-06-18'), false);
    assert.equal(atLeast('2024-11-05', '2025-03-26'), false);
  });

  test('a new Lifecycle awaits initialize on the latest revision and allows no batches', () => {
    const lc = new Lifecycle();
    assert.equal(lc.state, 'awaiting-initialize');
    assert.equal(lc.protocolVersion, LATEST_PROTOCOL_VERSION);
    assert.equal(lc.batchesAllowed, false);
  });

  test('batches are allowed only when ready on 2025-03-26', () => {
    const lc = new Lifecycle();
    lc.protocolVersion = '2025-03-26';
    assert.equal(lc.batchesAllowed, false, 'not before initialize');
    lc.state = 'ready';
    assert.equal(lc.batchesAllowed, true);
    for (const v of ['2024-11-05', '2025-06-18', '2025-11-25'] as const) {
      lc.protocolVersion = v;
      assert.equal(lc.batchesAllowed, false, v);
    }
    lc.protocolVersion = '2025-03-26';
    lc.state = 'closing';
    assert.equal(lc.batchesAllowed, false);
  });
});

// ---- basic answers ----------------------------------------------------------------------------

describe('processor answers', () => {
  test('answers a request with its result, echoing the id with its type', async () => {
    const h = start();
    await h.request(1, 'ping');
    assert.deepEqual(await h.next(), { jsonrpc: '2.0', id: 1, result: {} });
    await h.request('1', 'echo', { a: [1, 2] });
    assert.deepEqual(await h.next(), { jsonrpc: '2.0', id: '1', result: { a: [1, 2] } });
    await h.request(0, 'ping');
    assert.deepEqual(await h.next(), { jsonrpc: '2.0', id: 0, result: {} });
    assert.deepEqual(await h.finish(), []);
  });

  test('gives a handler empty params when the request has none, and answers undefined with {}', async () => {
    const seen: Params[] = [];
    const h = start({ requests: { quiet: (params) => { seen.push(params); return undefined; } } });
    await h.request(1, 'quiet');
    assert.deepEqual(await h.next(), { jsonrpc: '2.0', id: 1, result: {} });
    assert.deepEqual(seen, [{}]);
  });

  test('passes the id, method, signal and progress token to the handler', async () => {
    const contexts: RequestContext[] = [];
    const h = start({ requests: { look: (_p, ctx) => { contexts.push(ctx); return {}; } } });
    await h.request('a', 'look', { _meta: { progressToken: 'tok-1' } });
    await h.request('b', 'look', { _meta: { progressToken: 9 } });
    await h.request('c', 'look', { _meta: { progressToken: { bad: true } } });
    await h.request('d', 'look');
    for (let i = 0; i < 4; i++) await h.next();
    assert.deepEqual(contexts.map((c) => [c.id, c.method, c.progressToken]), [
      ['a', 'look', 'tok-1'], ['b', 'look', 9], ['c', 'look', undefined], ['d', 'look', undefined],
    ]);
    assert.ok(contexts.every((c) => c.signal instanceof AbortSignal && !c.signal.aborted));
  });

  test('answers an unknown method with -32601, keeping the id', async () => {
    const h = start();
    await h.request('x-1', 'tools/frobnicate');
    const m = await h.next();
    assert.equal(m.id, 'x-1');
    assert.equal(errorCode(m), -32601);
    assert.match(m.error?.message ?? '', /tools\/frobnicate/);
  });

  test('never answers notifications: handled, unknown, or throwing', async () => {
    const got: Params[] = [];
    const h = start({ notifications: {
      'notifications/note': (p) => { got.push(p); },
      'notifications/bad': () => { throw new Error('notification blew up'); },
    } });
    await h.notify('notifications/note', { n: 1 });
    await h.notify('notifications/unknown');
    await h.notify('notifications/bad');
    await h.barrier();
    assert.deepEqual(got, [{ n: 1 }]);
    assert.ok(h.log.calls.some((c) => c.level === 'error' && /notifications\/bad/.test(c.message)));
    assert.deepEqual(await h.finish(), []);
  });

  test('answers a parse-error item with -32700 and id null', async () => {
    const h = start();
    await h.incoming.push({ kind: 'parse-error', detail: 'Unexpected token } in JSON' });
    assert.deepEqual(await h.next(), {
      jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error', data: 'Unexpected token } in JSON' },
    });
  });

  test('answers an oversize item with -32600 and id null, naming the size and the limit', async () => {
    const h = start();
    await h.incoming.push({ kind: 'oversize', bytes: 2048, limit: 1024 });
    const m = await h.next();
    assert.equal(m.id, null);
    assert.equal(errorCode(m), -32600);
    assert.match(String(m.error?.data), /2048/);
    assert.match(String(m.error?.data), /1024/);
    await h.barrier(); // reading continues after the bad line
  });

  test('answers an invalid message with -32600, keeping a recoverable id', async () => {
    const h = start();
    await h.send({ jsonrpc: '1.0', id: 5, method: 'ping' });
    const a = await h.next();
    assert.deepEqual([a.id, errorCode(a)], [5, -32600]);
    await h.send(42);
    const b = await h.next();
    assert.deepEqual([b.id, errorCode(b)], [null, -32600]);
    await h.send({ jsonrpc: '2.0', id: null, method: 'ping' });
    const c = await h.next();
    assert.deepEqual([c.id, errorCode(c)], [null, -32600]);
  });

  test('answers an empty array with exactly one -32600, before and after initialize', async () => {
    const h = start();
    await h.send([]);
    const before = await h.next();
    assert.deepEqual([before.id, errorCode(before)], [null, -32600]);
    await h.initialize('2025-03-26');
    await h.send([]);
    const after = await h.next();
    assert.deepEqual([after.id, errorCode(after)], [null, -32600]);
    await h.barrier();
  });

  test('never answers an error response from the client, even one with id null', async () => {
    // JSON-RPC lets a client answer a request it could not parse with an error whose id is null;
    // a response is never replied to.
    const h = start();
    await h.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    await h.barrier();
  });

  test('handles a response from the client to an unknown request without answering it', async () => {
    const h = start();
    await h.send({ jsonrpc: '2.0', id: 'srv-404', result: {} });
    await h.barrier();
    assert.ok(h.log.calls.some((c) => /unknown request/.test(c.message)));
  });
});

// ---- errors from handlers ---------------------------------------------------------------------

describe('processor errors', () => {
  test('turns a plain Error from a sync handler into a bland -32603 and logs its stack', async () => {
    const h = start({ requests: { boom: () => { throw new Error('secret detail /etc/passwd'); } } });
    await h.request(7, 'boom');
    assert.deepEqual(await h.next(), { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Internal error' } });
    const logged = h.log.calls.find((c) => c.level === 'error');
    assert.ok(logged, 'the failure was logged');
    assert.match(logged.message, /boom/);
    assert.match(logged.message, /7/);
    assert.ok(logged.data instanceof Error);
    assert.match(logged.data.stack ?? '', /secret detail/);
  });

  test('turns a rejection of an async handler into a bland -32603 and logs it', async () => {
    const h = start({ requests: { boom: async () => { await Promise.resolve(); throw new TypeError('x is undefined'); } } });
    await h.request('b', 'boom');
    assert.deepEqual(await h.next(), { jsonrpc: '2.0', id: 'b', error: { code: -32603, message: 'Internal error' } });
    assert.ok(h.log.calls.some((c) => c.level === 'error' && c.data instanceof TypeError));
  });

  test('treats a thrown non-Error value as an internal error too', async () => {
    const h = start({ requests: { boom: () => { throw Object.assign(new Error('no such file'), { code: 'ENOENT' }); } } });
    await h.request(1, 'boom');
    assert.equal(errorCode(await h.next()), -32603, "a Node err.code string is never taken as the wire code");
  });

  test('keeps the code and data of RpcError subclasses, sync and async', async () => {
    const h = start({ requests: {
      mode: () => { throw new ModeNotFoundError('nope', ['code', 'ask']); },
      params: async () => { throw new InvalidParamsError('bad name', { path: '/name' }); },
    } });
    await h.request(1, 'mode');
    const a = await h.next();
    assert.equal(errorCode(a), -32001);
    assert.deepEqual((a.error?.data as { available_modes: string[] }).available_modes, ['code', 'ask']);
    await h.request(2, 'params');
    assert.deepEqual(await h.next(), { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'bad name', data: { path: '/name' } } });
    assert.equal(h.log.calls.filter((c) => c.level === 'error').length, 0, 'expected errors are not logged as bugs');
  });
});

// ---- lifecycle gating -------------------------------------------------------------------------

describe('processor lifecycle', () => {
  test('in lenient mode serves requests before initialize', async () => {
    const h = start();
    await h.request(1, 'echo', { x: 1 });
    assert.deepEqual(await h.next(), { jsonrpc: '2.0', id: 1, result: { x: 1 } });
  });

  test('in strict mode rejects requests before initialize with -32600, except ping', async () => {
    const h = start({ strict: true });
    await h.request(1, 'echo', { x: 1 });
    const refused = await h.next();
    assert.deepEqual([refused.id, errorCode(refused)], [1, -32600]);
    await h.request(2, 'nope');
    assert.equal(errorCode(await h.next()), -32600, 'even unknown methods are refused before initialize');
    await h.request(3, 'ping');
    assert.deepEqual(await h.next(), { jsonrpc: '2.0', id: 3, result: {} });
    await h.initialize();
    await h.request(4, 'echo', { x: 1 });
    assert.deepEqual(await h.next(), { jsonrpc: '2.0', id: 4, result: { x: 1 } });
  });

  test('in strict mode does not answer notifications sent before initialize', async () => {
    const h = start({ strict: true });
    await h.notify('notifications/anything');
    await h.barrier();
  });

  test('answers a second initialize with -32600 and keeps the negotiated revision', async () => {
    const h = start();
    await h.initialize('2025-06-18');
    await h.request(2, 'initialize', { protocolVersion: '2024-11-05' });
    const m = await h.next();
    assert.deepEqual([m.id, errorCode(m)], [2, -32600]);
    assert.equal(h.lifecycle.protocolVersion, '2025-06-18');
  });

  test('notify sends nothing before initialize and queues the message once ready', async () => {
    const h = start();
    assert.equal(h.processor.notify('notifications/message', { level: 'info' }), false);
    await h.initialize();
    assert.equal(h.processor.notify('notifications/message', { level: 'info' }), true);
    assert.deepEqual(await h.next(), { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info' } });
    assert.equal(h.processor.notify('notifications/tools/list_changed'), true);
    assert.deepEqual(await h.next(), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  });
});

// ---- batches ----------------------------------------------------------------------------------

describe('processor batches', () => {
  test('rejects an array with one -32600 before initialize and on revisions other than 2025-03-26', async () => {
    const ran: string[] = [];
    const h = start({ requests: { mark: (p) => { ran.push(String(p.tag)); return {}; } } });
    const batch = [{ jsonrpc: '2.0', id: 1, method: 'mark', params: { tag: 'a' } }, { jsonrpc: '2.0', id: 2, method: 'mark', params: { tag: 'b' } }];
    await h.send(batch);
    const before = await h.next();
    assert.deepEqual([before.id, errorCode(before)], [null, -32600]);
    await h.initialize('2025-06-18');
    await h.send(batch);
    const after = await h.next();
    assert.deepEqual([after.id, errorCode(after)], [null, -32600]);
    await h.barrier();
    assert.deepEqual(ran, [], 'no entry of a refused batch runs');
  });

  test('rejects an array on 2024-11-05 too', async () => {
    const h = start();
    await h.initialize('2024-11-05');
    await h.send([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    const m = await h.next();
    assert.deepEqual([m.id, errorCode(m)], [null, -32600]);
  });

  test('answers a batch as one array: sync and async results, error entries, no entry for notifications', async () => {
    const slow = controllable();
    const noted: Params[] = [];
    const h = start({
      requests: { slow: slow.handler, boom: () => { throw new Error('bug'); } },
      notifications: { 'notifications/note': (p) => { noted.push(p); } },
    });
    await h.initialize('2025-03-26');
    await h.send([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 'two', method: 'slow' },
      { jsonrpc: '2.0', method: 'notifications/note', params: { n: 1 } },
      42,
      { jsonrpc: '2.0', id: 3, method: 'nope' },
      { jsonrpc: '2.0', id: 4, method: 'boom' },
    ]);
    const call = await slow.calls.shift();
    // The batch waits for its slowest request; a later request is answered in the meantime.
    await h.barrier();
    call!.resolve({ ok: true });
    const answers = await h.nextBatch();
    assert.equal(answers.length, 5);
    const byId = new Map(answers.map((a) => [JSON.stringify(a.id), a]));
    assert.deepEqual(byId.get('1'), { jsonrpc: '2.0', id: 1, result: {} });
    assert.deepEqual(byId.get('"two"'), { jsonrpc: '2.0', id: 'two', result: { ok: true } });
    assert.equal(errorCode(byId.get('null')!), -32600);
    assert.equal(errorCode(byId.get('3')!), -32601);
    assert.equal(errorCode(byId.get('4')!), -32603);
    assert.deepEqual(noted, [{ n: 1 }]);
    assert.deepEqual(await h.finish(), []);
  });

  test('writes nothing for a batch of only notifications', async () => {
    const h = start();
    await h.initialize('2025-03-26');
    await h.send([{ jsonrpc: '2.0', method: 'notifications/a' }, { jsonrpc: '2.0', method: 'notifications/b' }]);
    await h.barrier();
    assert.deepEqual(await h.finish(), []);
  });

  test('rejects a batch that contains initialize with one -32600 and runs none of it', async () => {
    const ran: number[] = [];
    const h = start({ requests: { mark: (_p, ctx) => { ran.push(Number(ctx.id)); return {}; } } });
    await h.initialize('2025-03-26');
    await h.send([{ jsonrpc: '2.0', id: 1, method: 'mark' }, { jsonrpc: '2.0', id: 2, method: 'initialize', params: {} }]);
    const m = await h.next();
    assert.deepEqual([m.id, errorCode(m)], [null, -32600]);
    assert.match(String(m.error?.data), /initialize/);
    await h.barrier();
    assert.deepEqual(ran, []);
  });

  test('splices a PreSerialized result into a batch verbatim', async () => {
    const h = start({ requests: { cached: () => new PreSerialized('{"tools": [ ]}') } });
    await h.initialize('2025-03-26');
    await h.send([{ jsonrpc: '2.0', id: 1, method: 'cached' }, { jsonrpc: '2.0', id: 2, method: 'ping' }]);
    const raw = await h.outgoing.shift();
    assert.ok(raw !== undefined);
    assert.equal(lineText(raw), '[{"jsonrpc":"2.0","id":1,"result":{"tools": [ ]}},{"jsonrpc":"2.0","id":2,"result":{}}]');
  });
});

// ---- ordering, concurrency, backpressure, shutdown --------------------------------------------

describe('processor scheduling', () => {
  test('keeps request order for synchronous responses', async () => {
    const h = start();
    const ids = Array.from({ length: 50 }, (_, i) => i);
    for (const id of ids) await h.request(id, id % 3 === 0 ? 'echo' : 'ping', { id });
    const seen: unknown[] = [];
    for (const _ of ids) seen.push((await h.next()).id);
    assert.deepEqual(seen, ids);
  });

  test('answers every request exactly once when async handlers finish out of order', async () => {
    const slow = controllable();
    const h = start({ requests: { slow: slow.handler } });
    const ids: (string | number)[] = [];
    for (let i = 0; i < 10; i++) {
      ids.push(i, `s${i}`);
      await h.request(i, 'ping');
      await h.request(`s${i}`, 'slow', { i });
    }
    const pending: PendingCall[] = [];
    for (let i = 0; i < 10; i++) pending.push((await slow.calls.shift())!);
    for (const call of pending.reverse()) call.resolve({ i: call.params.i });
    const all = await h.finish();
    const counts = new Map<unknown, number>();
    for (const m of all) counts.set(m.id, (counts.get(m.id) ?? 0) + 1);
    assert.deepEqual([...counts.keys()].sort(), [...ids].sort());
    assert.ok([...counts.values()].every((n) => n === 1), 'one response per id');
    for (const m of all) if (typeof m.id === 'string') assert.deepEqual(m.result, { i: Number(m.id.slice(1)) });
  });

  test('splices a PreSerialized result verbatim into the response line', async () => {
    const h = start({ requests: { cached: () => new PreSerialized('{"tools": [ ], "x":1}') } });
    await h.request('c', 'cached');
    const raw = await h.outgoing.shift();
    assert.ok(raw !== undefined);
    assert.equal(lineText(raw), '{"jsonrpc":"2.0","id":"c","result":{"tools": [ ], "x":1}}');
  });

  test('hands an encoded PreSerialized result to the writer as its own head and the shared bytes', async () => {
    const json = '{"text":"\\ud83d\\udcbb cached"}';
    const pre = new PreSerialized(json, Buffer.from(json, 'latin1'));
    const h = start({ requests: { cached: () => pre } });
    await h.request('é', 'cached');
    await h.request(2, 'cached');
    const [first, second] = [await h.outgoing.shift(), await h.outgoing.shift()];
    assert.ok(first instanceof SplicedLine && second instanceof SplicedLine);
    assert.equal(first.body, pre.encoded, 'the bytes are shared, not copied per answer');
    assert.equal(lineText(first), `{"jsonrpc":"2.0","id":"é","result":${json}}`);
    assert.deepEqual(JSON.parse(lineText(second)), { jsonrpc: '2.0', id: 2, result: { text: '💻 cached' } });
  });

  test('never runs more than maxInFlight async handlers at once', async () => {
    const slow = controllable();
    const h = start({ requests: { slow: slow.handler }, maxInFlight: 2 });
    for (let i = 1; i <= 5; i++) await h.request(i, 'slow');
    const first = (await slow.calls.shift())!;
    const second = (await slow.calls.shift())!;
    await nextTurn();
    assert.equal(slow.calls.size, 0, 'the third request must wait for a free slot');
    assert.equal(slow.active(), 2);
    first.resolve('one');
    const third = (await slow.calls.shift())!;
    await nextTurn();
    assert.equal(slow.calls.size, 0);
    second.resolve('two');
    third.resolve('three');
    const fourth = (await slow.calls.shift())!;
    const fifth = (await slow.calls.shift())!;
    fourth.resolve('four');
    fifth.resolve('five');
    const rest = await h.finish();
    assert.equal(slow.peak(), 2);
    assert.deepEqual(rest.map((m) => m.result).sort(), ['five', 'four', 'one', 'three', 'two']);
  });

  test('stops taking input while the outgoing queue is full and resumes when it drains', async () => {
    const calls = new AsyncQueue<number>(100);
    const h = start({ requests: { count: (_p, ctx) => { calls.tryPush(Number(ctx.id)); return {}; } }, outgoingCapacity: 1 });
    for (let i = 1; i <= 5; i++) await h.request(i, 'count');
    assert.equal(await calls.shift(), 1);
    assert.equal(await calls.shift(), 2); // its response waits for room in the full outgoing queue
    await nextTurn();
    assert.equal(calls.size, 0, 'no further request is handled while the response is blocked');
    assert.equal(h.incoming.size, 3, 'requests 3..5 stay in the incoming queue');
    assert.equal((await h.next()).id, 1);
    assert.equal(await calls.shift(), 3);
    await nextTurn();
    assert.equal(h.incoming.size, 2);
    const ids: unknown[] = [];
    for (let i = 0; i < 4; i++) ids.push((await h.next()).id);
    assert.deepEqual(ids, [2, 3, 4, 5]);
  });

  test('run() resolves after the input closes and in-flight work has finished', async () => {
    const slow = controllable();
    const h = start({ requests: { slow: slow.handler } });
    await h.request(1, 'slow');
    const call = (await slow.calls.shift())!;
    h.incoming.close();
    let finished = false;
    void h.done.then(() => { finished = true; });
    await nextTurn();
    assert.equal(h.lifecycle.state, 'closing');
    assert.equal(finished, false, 'run() waits for the in-flight request');
    call.resolve('late but wanted');
    await h.done;
    assert.deepEqual(h.outgoing.takeAvailable(10).map((m) => JSON.parse(lineText(m)) as unknown), [
      { jsonrpc: '2.0', id: 1, result: 'late but wanted' },
    ]);
  });

  test('run() resolves at once when the input closes with nothing in flight', async () => {
    const h = start();
    assert.deepEqual(await h.finish(), []);
    assert.equal(h.lifecycle.state, 'closing');
  });
});

// ---- cancellation -----------------------------------------------------------------------------

describe('processor cancellation', () => {
  async function cancelOne(id: string | number): Promise<void> {
    const slow = controllable();
    const h = start({ requests: { slow: slow.handler } });
    await h.request(id, 'slow');
    const call = (await slow.calls.shift())!;
    await h.notify('notifications/cancelled', { requestId: id, reason: 'user gave up' });
    const reason = await call.aborted;
    assert.ok(reason instanceof Error);
    assert.equal(reason.message, 'user gave up');
    call.resolve('too late');
    await h.barrier();
    assert.deepEqual(await h.finish(), [], 'the cancelled request is never answered');
  }

  test('aborts the signal of a cancelled in-flight request and drops its response', async () => {
    await cancelOne(5);
  });

  test('cancels a request whose id is 0', async () => {
    await cancelOne(0);
  });

  test('cancels a request with a string id', async () => {
    await cancelOne('req-9');
  });

  test('drops the response of a cancelled request that fails', async () => {
    const slow = controllable();
    const h = start({ requests: { slow: slow.handler } });
    await h.request(1, 'slow');
    const call = (await slow.calls.shift())!;
    await h.notify('notifications/cancelled', { requestId: 1 });
    await call.aborted;
    call.reject(new Error('aborted'));
    assert.deepEqual(await h.finish(), []);
  });

  test('ignores a cancellation for an unknown id', async () => {
    const slow = controllable();
    const h = start({ requests: { slow: slow.handler } });
    await h.request(1, 'slow');
    const call = (await slow.calls.shift())!;
    await h.notify('notifications/cancelled', { requestId: 99 });
    await h.notify('notifications/cancelled', { requestId: null });
    await h.notify('notifications/cancelled', {});
    await h.barrier();
    assert.equal(call.ctx.signal.aborted, false);
    call.resolve('done');
    assert.deepEqual(await h.finish(), [{ jsonrpc: '2.0', id: 1, result: 'done' }]);
  });

  test('does not confuse the string id "1" with the integer id 1', async () => {
    const slow = controllable();
    const h = start({ requests: { slow: slow.handler } });
    await h.request(1, 'slow');
    const call = (await slow.calls.shift())!;
    await h.notify('notifications/cancelled', { requestId: '1' });
    await h.barrier();
    assert.equal(call.ctx.signal.aborted, false);
    call.resolve('kept');
    assert.deepEqual(await h.finish(), [{ jsonrpc: '2.0', id: 1, result: 'kept' }]);
  });

  test('a cancellation after the response was written changes nothing', async () => {
    const h = start();
    await h.request(1, 'ping');
    await h.next();
    await h.notify('notifications/cancelled', { requestId: 1 });
    await h.barrier();
    assert.deepEqual(await h.finish(), []);
  });

  test('drops the cancelled entry of a batch and answers the rest', async () => {
    const slow = controllable();
    const h = start({ requests: { slow: slow.handler } });
    await h.initialize('2025-03-26');
    await h.send([{ jsonrpc: '2.0', id: 1, method: 'slow' }, { jsonrpc: '2.0', id: 2, method: 'ping' }]);
    const call = (await slow.calls.shift())!;
    await h.notify('notifications/cancelled', { requestId: 1 });
    await call.aborted;
    call.resolve('late');
    assert.deepEqual(await h.nextBatch(), [{ jsonrpc: '2.0', id: 2, result: {} }]);
  });

  test('delivers a cancellation even when maxInFlight requests are already running', async () => {
    // The cancellation must not wait for a free slot: the slot is only freed by the cancellation.
    const slow = controllable();
    const h = start({ requests: { slow: slow.handler }, maxInFlight: 1 });
    await h.request(1, 'slow');
    const call = (await slow.calls.shift())!;
    await h.notify('notifications/cancelled', { requestId: 1 });
    await withDeadline(call.aborted, 2000, 'the abort of request 1');
    call.resolve('too late');
    await h.barrier();
    assert.deepEqual(await h.finish(), []);
  });

  test('abortAll tells every in-flight request to stop but still sends what each ends with', async () => {
    const slow = controllable();
    const h = start({ requests: { slow: slow.handler } });
    await h.request(1, 'slow');
    await h.request(2, 'slow');
    const calls = [(await slow.calls.shift())!, (await slow.calls.shift())!];
    h.processor.abortAll();
    for (const call of calls) {
      const reason = await call.aborted;
      assert.match(String((reason as Error).message), /shutting down/);
      call.resolve('late');
    }
    // Shutdown is not a client's cancellation: every request read still gets its one answer.
    const out = await h.finish();
    assert.deepEqual(out.map((m: { id?: unknown }) => m.id).sort(), [1, 2]);
  });
});

// ---- requests to the client -------------------------------------------------------------------

describe('processor requestClient', () => {
  test('writes a server request and resolves with the client result routed back by id', async () => {
    const h = start();
    const answer = h.processor.requestClient('roots/list', undefined, 60_000);
    const req = await h.next();
    assert.equal(req.method, 'roots/list');
    assert.equal(req.jsonrpc, '2.0');
    assert.equal(typeof req.id, 'string');
    assert.equal(Object.hasOwn(req, 'params'), false);
    await h.send({ jsonrpc: '2.0', id: req.id, result: { roots: [{ uri: 'file:///p' }] } });
    assert.deepEqual(await answer, { roots: [{ uri: 'file:///p' }] });
  });

  test('gives concurrent server requests distinct ids and routes each answer to its caller', async () => {
    const h = start();
    const a = h.processor.requestClient('sampling/createMessage', { n: 1 }, 60_000);
    const b = h.processor.requestClient('sampling/createMessage', { n: 2 }, 60_000);
    const ra = await h.next();
    const rb = await h.next();
    assert.notEqual(ra.id, rb.id);
    assert.deepEqual(ra.params, { n: 1 });
    await h.send({ jsonrpc: '2.0', id: rb.id, result: 'B' });
    await h.send({ jsonrpc: '2.0', id: ra.id, result: 'A' });
    assert.deepEqual(await Promise.all([a, b]), ['A', 'B']);
  });

  test('rejects when the client answers with an error', async () => {
    const h = start();
    const answer = h.processor.requestClient('roots/list', undefined, 60_000);
    const req = await h.next();
    await h.send({ jsonrpc: '2.0', id: req.id, error: { code: -32601, message: 'no roots' } });
    await assert.rejects(answer, /-32601/);
  });

  test('rejects after the timeout and tells the client the request is cancelled', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const h = start();
    await h.initialize();
    const answer = h.processor.requestClient('roots/list', undefined, 500);
    const req = await h.next();
    let settled = false;
    answer.then(() => { settled = true; }, () => { settled = true; });
    t.mock.timers.tick(499);
    await nextTurn();
    assert.equal(settled, false, 'still waiting 1 ms before the timeout');
    t.mock.timers.tick(1);
    await assert.rejects(answer, /timed out after 500 ms/);
    assert.deepEqual(await h.next(), {
      jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: req.id, reason: 'timed out' },
    });
    // A late answer to the timed-out request is ignored, not answered.
    await h.send({ jsonrpc: '2.0', id: req.id, result: {} });
    await h.barrier();
  });

  test('rejects at once when the outgoing queue is full', async () => {
    const h = start({ outgoingCapacity: 1 });
    assert.equal(h.outgoing.tryPush(Buffer.from('{"jsonrpc":"2.0","method":"filler"}')), true);
    await assert.rejects(h.processor.requestClient('roots/list', undefined, 60_000), /output queue full/);
  });

  test('routes a client response to a waiting handler even when maxInFlight requests are running', async () => {
    // The handler holds the only slot while it waits for the client; the client's answer must not
    // itself wait for a slot.
    let processor: Processor | undefined;
    const h = start({
      requests: { ask: async () => ({ answer: await processor!.requestClient('roots/list', undefined, 60_000) }) },
      maxInFlight: 1,
    });
    processor = h.processor;
    await h.request(1, 'ask');
    const req = await h.next();
    assert.equal(req.method, 'roots/list');
    await h.send({ jsonrpc: '2.0', id: req.id, result: { roots: [] } });
    assert.deepEqual(await withDeadline(h.next(), 2000, 'the answer to request 1'), { jsonrpc: '2.0', id: 1, result: { answer: { roots: [] } } });
  });

  test('rejects pending server requests when the connection closes', async () => {
    const h = start();
    const answer = h.processor.requestClient('roots/list', undefined, 60_000);
    await h.next();
    await h.finish();
    await assert.rejects(answer, /connection closed/);
  });
});

// ---- output size limit and nesting depth ------------------------------------------------------

describe('processor output limit', () => {
  const big = (n: number): string => 'x'.repeat(n);

  test('answers a request whose result is over maxMessageBytes with -32603 naming the size and the limit', async () => {
    const h = start({ maxMessageBytes: 2048, requests: { huge: () => ({ text: big(5000) }), small: () => ({ ok: true }) } });
    await h.request(7, 'huge');
    const m = await h.next();
    assert.equal(m.id, 7);
    assert.equal(errorCode(m), -32603);
    assert.match(m.error!.message, /Response not sent: it is 50\d\d bytes, over the limit of 2048 bytes \(server\.max_message_bytes\)/);
    assert.deepEqual((m.error!.data as { limit: number }).limit, 2048);
    await h.request(8, 'small');
    assert.deepEqual(await h.next(), { jsonrpc: '2.0', id: 8, result: { ok: true } });
    assert.ok(h.log.calls.some((c) => c.level === 'warn' && /answer to request 7 was replaced/.test(c.message)));
  });

  test('counts an encoded PreSerialized result with its head against maxMessageBytes', async () => {
    const fits = `{"t":"${big(1980)}"}`; // 1,988 bytes: with the 33-byte head and the brace, 2,022
    const over = `{"t":"${big(2020)}"}`;
    const h = start({
      maxMessageBytes: 2048,
      requests: { fits: () => new PreSerialized(fits, Buffer.from(fits)), over: () => new PreSerialized(over, Buffer.from(over)) },
    });
    await h.request(1, 'over');
    await h.request(2, 'fits');
    const m = await h.next();
    assert.equal(m.id, 1);
    assert.equal(errorCode(m), -32603);
    assert.match(m.error!.message, /it is 2062 bytes, over the limit of 2048 bytes/);
    assert.equal((await h.next()).id, 2);
  });

  test('answers a result that cannot be serialised at all with -32603 for its id', async () => {
    const h = start({ requests: { cyclic: () => { const o: Record<string, unknown> = {}; o.self = o; return o; } } });
    await h.request('c', 'cyclic');
    const m = await h.next();
    assert.equal(m.id, 'c');
    assert.equal(errorCode(m), -32603);
    assert.match(m.error!.message, /could not be serialised/);
  });

  test('drops a notification over the limit with a warning, and keeps sending smaller ones', async () => {
    const h = start({ maxMessageBytes: 2048 });
    await h.initialize();
    assert.equal(h.processor.notify('notifications/roo/event', { payload: big(4000) }), false);
    assert.ok(h.log.calls.some((c) => c.level === 'warn' && /dropped a notifications\/roo\/event notification: it is \d+ bytes, over the limit of 2048/.test(c.message)));
    assert.equal(h.processor.notify('notifications/roo/event', { payload: 'small' }), true);
    assert.deepEqual(await h.next(), { jsonrpc: '2.0', method: 'notifications/roo/event', params: { payload: 'small' } });
  });

  test('in a batch, replaces the answers that do not fit, largest first, and answers every id once', async () => {
    const h = start({ maxMessageBytes: 4096, requests: { sized: (p) => ({ text: big(Number(p.n)) }) } });
    await h.initialize('2025-03-26');
    await h.send([
      { jsonrpc: '2.0', id: 1, method: 'sized', params: { n: 1500 } },
      { jsonrpc: '2.0', id: 2, method: 'sized', params: { n: 2500 } },
      { jsonrpc: '2.0', id: 3, method: 'sized', params: { n: 10 } },
      { jsonrpc: '2.0', id: 4, method: 'sized', params: { n: 9000 } },
    ]);
    const batch = await h.nextBatch();
    assert.deepEqual(batch.map((m) => m.id), [1, 2, 3, 4]);
    assert.equal(errorCode(batch[3]!), -32603, 'alone over the limit');
    assert.equal(errorCode(batch[1]!), -32603, 'the largest of the rest, replaced so the array fits');
    assert.deepEqual(batch[0]!.result, { text: big(1500) });
    assert.deepEqual(batch[2]!.result, { text: big(10) });
  });

  test('answers a message nested too deep with -32600 and its id, and ignores such a response', async () => {
    const h = start();
    await h.incoming.push({ kind: 'too-deep', id: 5, response: false, limit: 1000 });
    const m = await h.next();
    assert.equal(m.id, 5);
    assert.equal(errorCode(m), -32600);
    assert.match(String(m.error!.data), /the message nests deeper than 1000 levels/);
    await h.incoming.push({ kind: 'too-deep', id: 6, response: true, limit: 1000 });
    await h.barrier();
  });
});

describe('processor output backpressure', () => {
  test('starts no new work while an answer waits for room in the outgoing queue', async () => {
    let started = 0;
    const h = start({ outgoingCapacity: 1, requests: { work: async () => { started++; return { n: started }; } } });
    await h.request(1, 'work');
    await h.request(2, 'work');
    await nextTurn();
    assert.equal(started, 2, 'both started; the first answer fills the queue, the second waits');
    await h.request(3, 'work');
    await nextTurn();
    assert.equal(started, 2, 'the third waits while an answer waits');
    assert.equal((await h.next()).id, 1);
    await nextTurn();
    assert.equal(started, 3, 'room was made: the waiting answer went in and work resumed');
    assert.equal((await h.next()).id, 2);
    assert.equal((await h.next()).id, 3);
  });
});
