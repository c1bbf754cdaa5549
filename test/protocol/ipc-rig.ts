// Shared setup for the IPC protocol tests: a fake Roo peer on a temp socket, the built server
// pointed at it through a --config file, and small round-trip helpers. It never edits the harness.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileSchema, type JsonSchema, type SchemaIssue } from '../../src/schema/validate.js';
import { FakeRoo, type FakeRooOptions } from '../fixtures/fake-roo.js';
import { startServer, tempDir, type Msg, type ServerProcess } from './harness.js';

type TestContext = { after(fn: () => void | Promise<void>): void };

/** The twelve bridge tools, in one table. */
export const IPC_TOOLS = [
  'roo_ipc_status', 'roo_ipc_start_task', 'roo_ipc_send_message', 'roo_ipc_cancel_task', 'roo_ipc_close_task',
  'roo_ipc_resume_task', 'roo_ipc_delete_queued_message', 'roo_ipc_get_modes', 'roo_ipc_get_commands',
  'roo_ipc_get_models', 'roo_ipc_poll_ai_messages', 'roo_ipc_poll_other_events',
] as const;

/** Environment that would enable the bridge behind the test's back; cleared for every spawned server. */
export const NO_IPC_ENV: Record<string, undefined> = {
  ROO_CODE_IPC_SOCKET_PATH: undefined, ROO_IPC_HOST: undefined, ROO_IPC_PORT: undefined, ROO_MODES_LOG_LEVEL: undefined,
};

export interface BridgeStatus {
  enabled: boolean; connected: boolean; state: string; target?: string; clientId?: string;
  serverPid?: number; serverPpid?: number; reconnectAttempts: number; connections: number;
  queueLimit: number; queued: { messages: number; other: number }; dropped: { messages: number; other: number };
  pendingWaits: number; lastError?: string;
}

export type OutputCheck = (value: unknown, rootPath?: string) => SchemaIssue[];

export interface RooEventWire { eventName: string; payload: unknown; taskId?: number }

/** A running server plus an id counter so each test can issue requests without picking ids. */
export class Rig {
  #nextId = 1;
  #outputChecks: Promise<Map<string, OutputCheck>> | null = null;
  constructor(readonly s: ServerProcess, readonly dir: string, readonly socket: string, readonly fake: FakeRoo | null) {}

  id(): number { return this.#nextId++; }

  tool(name: string, args: Record<string, unknown> = {}): Promise<Msg> { return this.s.tool(this.id(), name, args); }

  /** A tool call that must succeed, with structuredContent matching the listed outputSchema; returns its metadata. */
  async ok(name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const res = await this.tool(name, args);
    assert.ok(res.result && res.result.isError !== true, `${name} failed: ${JSON.stringify(res.error ?? res.result)}\nserver stderr:\n${this.s.stderr.slice(-1500)}`);
    const check = (await this.outputChecks()).get(name);
    assert.ok(check, `${name} lists an outputSchema`);
    assert.deepEqual(check(res.result.structuredContent, 'structuredContent'), [], `${name}: structuredContent matches its outputSchema`);
    return res.result.metadata as Record<string, unknown>;
  }

  /** The outputSchema of every listed tool, compiled once per server (the rig initializes on 2025-11-25). */
  outputChecks(): Promise<Map<string, OutputCheck>> {
    this.#outputChecks ??= (async () => {
      const checks = new Map<string, OutputCheck>();
      let cursor: string | undefined;
      do {
        const res = await this.s.call(this.id(), 'tools/list', cursor === undefined ? {} : { cursor });
        for (const tool of res.result.tools as { name: string; outputSchema?: JsonSchema }[]) {
          if (tool.outputSchema !== undefined) checks.set(tool.name, compileSchema(tool.outputSchema));
        }
        cursor = res.result.nextCursor as string | undefined;
      } while (cursor !== undefined);
      return checks;
    })();
    return this.#outputChecks;
  }

  /** A tool call that must fail as a JSON-RPC error; returns the error. */
  async fails(name: string, args: Record<string, unknown> = {}): Promise<{ code: number; message: string; data?: unknown }> {
    const res = await this.tool(name, args);
    assert.ok(res.error, `${name} should have failed, got ${JSON.stringify(res.result)}`);
    return res.error as { code: number; message: string; data?: unknown };
  }

  async status(): Promise<BridgeStatus> { return (await this.ok('roo_ipc_status')) as unknown as BridgeStatus; }

  /** Asks for the status until `pred` holds (the bridge reconnects on timers, with no event to await). */
  async untilStatus(pred: (st: BridgeStatus) => boolean, what: string, deadlineMs = 5000): Promise<BridgeStatus> {
    const end = Date.now() + deadlineMs;
    for (;;) {
      const st = await this.status();
      if (pred(st)) return st;
      if (Date.now() > end) throw new Error(`timed out after ${deadlineMs} ms waiting until ${what}; last status ${JSON.stringify(st)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async ping(): Promise<void> {
    assert.deepEqual((await this.s.call(this.id(), 'ping')).result, {});
  }

  /** Waits for the push notification of an event with this name (and, optionally, a matching payload). */
  pushed(eventName: string, match: (payload: unknown) => boolean = () => true): Promise<Msg> {
    return this.s.waitFor((m) => m.method === 'notifications/roo/event' && paramsOf(m).eventName === eventName && match(paramsOf(m).payload),
      5000, `notifications/roo/event ${eventName}`);
  }

  /** Waits for a log notification from the bridge whose message contains `text`. */
  logged(text: string, timeoutMs = 5000): Promise<Msg> {
    return this.s.waitFor((m) => m.method === 'notifications/message' && logText(m).includes(text), timeoutMs, `a log record containing ${JSON.stringify(text)}`);
  }
}

/** A message's params as a record ({} when absent). */
export function paramsOf(m: Msg): Record<string, unknown> {
  const p = m.params;
  return typeof p === 'object' && p !== null && !Array.isArray(p) ? p as Record<string, unknown> : {};
}

/** The message text of a notifications/message, whichever of its two data forms it has. */
export function logText(m: Msg): string {
  const data = paramsOf(m).data;
  if (typeof data === 'string') return data;
  if (typeof data === 'object' && data !== null && 'message' in data && typeof data.message === 'string') return data.message;
  return '';
}

export interface RigOptions {
  /** Options for the fake peer; `false` starts no peer (for paths with nothing listening). */
  fake?: FakeRooOptions | false;
  /** Extra `ipc` config keys (queue_limit, push_notifications, query_timeout_ms, socket_path…). */
  ipc?: Record<string, unknown>;
  /** Wait until the bridge reports connected (default true when a peer is started and acks). */
  connect?: boolean;
  /** Other top-level config sections (e.g. `server`), written beside `ipc`. */
  config?: Record<string, unknown>;
  /** A logging/setLevel to send right after initialize. */
  logLevel?: string;
}

/** Starts the fake peer (unless told not to) and a server configured for its socket, initialized. */
export async function startRig(t: TestContext, o: RigOptions = {}): Promise<Rig> {
  const dir = tempDir(t, 'rms-ipc-');
  const socket = join(dir, 'roo.sock');
  let fake: FakeRoo | null = null;
  if (o.fake !== false) {
    const peer = new FakeRoo({ path: socket, ...o.fake });
    await peer.listen();
    t.after(() => peer.close());
    fake = peer;
  }
  const cfg = join(dir, 'config.json');
  writeFileSync(cfg, JSON.stringify({ ...o.config, ipc: { socket_path: socket, ...o.ipc } }));
  const s = startServer(t, { args: ['--config', cfg], env: NO_IPC_ENV });
  const rig = new Rig(s, dir, socket, fake);
  await s.initialize();
  if (o.logLevel !== undefined) assert.deepEqual((await s.call(rig.id(), 'logging/setLevel', { level: o.logLevel })).result, {});
  if (o.connect ?? (fake !== null && o.fake !== false && o.fake?.silent !== true)) {
    await rig.untilStatus((st) => st.connected, 'the bridge is connected');
  }
  return rig;
}

/** Every tool name over all tools/list pages. */
export async function listToolNames(s: ServerProcess, firstId: number): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  let id = firstId;
  do {
    const res = await s.call(id++, 'tools/list', cursor === undefined ? {} : { cursor });
    for (const tool of res.result.tools as { name: string }[]) names.push(tool.name);
    cursor = res.result.nextCursor as string | undefined;
  } while (cursor !== undefined);
  return names;
}
