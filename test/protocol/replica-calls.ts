// What the replica tests share: one cluster per test file (Redis, project folder, three replicas,
// the proxy), calls of both eras read into one outcome, the seed workflow, and a switch_mode load
// whose acknowledged changes are checked afterwards. It asserts only what every caller relies on.
import { after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testRedis, type TestRedis } from '../redis-server.js';
import { startProxy, startReplicas, type Replica, type RoundRobinProxy } from '../replicas.js';
import { tempDir } from './harness.js';
import { HttpEndpoint, type Reply } from './http-harness.js';

export type Json = Record<string, unknown>;
/** A tools/call's outcome: the result, or the JSON-RPC error (code, message, data). */
export type Outcome = { ok: true; result: Json } | { ok: false; code: number; message: string; data: Json };

export interface Cluster { redis: TestRedis; project: string; prefix: string; replicas: Replica[]; proxy: RoundRobinProxy; client: HttpEndpoint }

// The cluster lives as long as the test file: torn down by the file's own after hook.
const cleanups: (() => void | Promise<void>)[] = [];
const fileScope = { after: (fn: () => void | Promise<void>) => { cleanups.push(fn); } } as unknown as TestContext;
after(async () => { for (const fn of cleanups.splice(0).reverse()) await fn(); });
const shared: { cluster?: Promise<Cluster> } = {};

/** One Redis, one project and three replicas behind the proxy, started by the first test that asks. */
export function cluster(): Promise<Cluster> {
  return (shared.cluster ??= (async () => {
    const redis = await testRedis(fileScope);
    const project = tempDir(fileScope, 'rms-replicas-proj-');
    // A prefix of this run's own: ROO_MODES_TEST_REDIS may name a Redis that other runs share.
    const config = join(project, 'server-config.json');
    const prefix = `rms-rep-${process.pid}:`;
    writeFileSync(config, JSON.stringify({ store: { prefix } }));
    const replicas = await startReplicas(fileScope, 3, { args: ['--store', redis.url, '--config', config, '--project-root', project] });
    const proxy = await startProxy(fileScope, replicas);
    return { redis, project, prefix, replicas, proxy, client: new HttpEndpoint(proxy.url) };
  })());
}

const ids = { next: 1 };
/** A fresh JSON-RPC id. */
export const nextId = (): number => ids.next++;

/** A 2026-07-28 tools/call (stateless: every header mirrored) to `to`. */
export async function call(to: HttpEndpoint, tool: string, args: Json = {}): Promise<Outcome> {
  return outcomeOf(await to.modern(ids.next++, 'tools/call', { name: tool, arguments: args }), tool);
}

/** A legacy-era tools/call within session `sid`. */
export async function legacyCall(to: HttpEndpoint, sid: string, tool: string, args: Json = {}): Promise<Outcome> {
  const reply = await to.post({ jsonrpc: '2.0', id: ids.next++, method: 'tools/call', params: { name: tool, arguments: args } }, { 'mcp-session-id': sid });
  return outcomeOf(reply, tool);
}

export function outcomeOf(reply: Reply, what: string): Outcome {
  const answer = reply.messages.find((m) => m.id !== undefined && m.method === undefined);
  assert.ok(answer, `${what}: no JSON-RPC answer (HTTP ${reply.status}): ${reply.body.slice(0, 500)}`);
  if (answer.error) return { ok: false, code: answer.error.code, message: answer.error.message, data: (answer.error.data ?? {}) as Json };
  const result = answer.result as Json;
  // A failure given as an isError result (input validation in 2026-07-28) carries the same error object.
  if (result.isError === true) {
    const wire = (result.metadata as { error?: { code: number; message: string; data?: Json } } | undefined)?.error;
    return { ok: false, code: wire?.code ?? 0, message: wire?.message ?? JSON.stringify(result.content), data: wire?.data ?? {} };
  }
  return { ok: true, result };
}

/** The metadata of a successful call, or a failure naming the call and the error. */
export function ok(o: Outcome, what: string): Json {
  if (!o.ok) assert.fail(`${what}: error ${o.code} ${o.message} ${JSON.stringify(o.data)}`);
  const meta = o.result.metadata;
  assert.ok(meta && typeof meta === 'object', `${what}: no metadata in ${JSON.stringify(o.result).slice(0, 300)}`);
  return meta as Json;
}

/** The seed workflow (as `demo` walks it); `run` makes each call, wherever it lands. */
export async function seedWorkflow(run: (tool: string, args: Json) => Promise<Outcome>): Promise<void> {
  const list = ok(await run('list_modes', {}), 'list_modes');
  const slugs = (list.modes as { slug: string }[]).map((m) => m.slug);
  for (const s of ['architect', 'code', 'debug']) assert.ok(slugs.includes(s), `list_modes has ${s}`);
  const info = ok(await run('get_mode_info', { mode_slug: 'architect' }), 'get_mode_info');
  assert.equal((info.tool_groups as { edit: { enabled: boolean } }).edit.enabled, true);
  const parent = ok(await run('create_task', { mode_slug: 'architect', initial_message: 'Design it' }), 'create_task');
  const sid = parent.session_id as string;
  assert.match(sid, /^ses_/);
  assert.equal(ok(await run('validate_tool_use', { session_id: sid, tool_name: 'write_to_file', file_path: 'design.md' }), 'validate design.md').allowed, true);
  assert.equal(ok(await run('validate_tool_use', { session_id: sid, tool_name: 'write_to_file', file_path: 'src/app.py' }), 'validate app.py').allowed, false);
  const switched = ok(await run('switch_mode', { session_id: sid, new_mode_slug: 'code', reason: 'design done' }), 'switch_mode');
  assert.deepEqual([switched.old_mode, switched.new_mode], ['architect', 'code']);
  assert.equal(ok(await run('validate_tool_use', { session_id: sid, tool_name: 'write_to_file', file_path: 'src/app.py' }), 'validate app.py in code').allowed, true,
    'the switch made on one replica is what the next one sees');
  const child = ok(await run('create_task', { mode_slug: 'debug', initial_message: 'Find the bug', parent_session_id: sid }), 'create subtask');
  const tree = ok(await run('get_task_info', { session_id: sid, include_hierarchy: true }), 'get_task_info');
  const children = (tree.hierarchy as { children: { session_id: string }[] }).children;
  assert.deepEqual(children.map((c) => c.session_id), [child.session_id]);
  assert.equal((tree.task as { mode_slug: string }).mode_slug, 'code');
  assert.equal(ok(await run('complete_task', { session_id: child.session_id, status: 'completed', result: 'fixed' }), 'complete subtask').status, 'completed');
  const done = ok(await run('complete_task', { session_id: sid, status: 'completed', result: 'all done' }), 'complete parent');
  assert.equal(done.status, 'completed');
  assert.deepEqual(done.active_children, [], 'the subtask completed on another replica is no longer active');
  const after = ok(await run('get_task_info', { session_id: sid }), 'get_task_info after completion');
  assert.equal((after.task as { state: string }).state, 'completed');
}

/** Asserts no two consecutive requests from `from` on landed on the same replica, and that all three served. */
export function assertSpread(proxy: RoundRobinProxy, from: number): void {
  const by = proxy.servedBy(from);
  assert.ok(by.length >= 3, `at least three requests went through the proxy: ${by.join(',')}`);
  assert.ok(by.every((r) => r !== null), `every request reached a replica: ${by.join(',')}`);
  for (let i = 1; i < by.length; i++) assert.notEqual(by[i], by[i - 1], `requests ${i - 1} and ${i} both went to replica ${String(by[i])}: ${by.join(',')}`);
  assert.deepEqual(new Set(by), new Set([0, 1, 2]), `every replica served some: ${by.join(',')}`);
}

export const stderrOf = (replicas: Replica[]): string => replicas.map((r) => r.stderr.slice(-3000)).join('\n');

/** Writes a file the way editors save (a new file renamed over the old), so no watcher sees it half written. */
export function saveFile(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}
export const modesYaml = (...modes: [slug: string, role: string][]): string =>
  `customModes:\n${modes.map(([slug, role]) => `  - slug: ${slug}\n    name: ${slug}\n    roleDefinition: ${role}\n    groups: [read]\n`).join('')}`;


/**
 * Workers switching the modes of `sessions` through `to`, one call at a time each, until stopped.
 * Each acknowledged switch's reason is kept per session; a refusal is kept with how long it took;
 * a call with no answer at all (its replica died under it) is counted as cut, and is not acknowledged.
 */
export function switchLoad(to: HttpEndpoint, sessions: string[]) {
  const acked = new Map<string, string[]>(sessions.map((s) => [s, []]));
  const refused: { ms: number; o: Outcome }[] = [];
  const state = { stop: false, n: 0, cut: 0 };
  const workers = sessions.map(async (sid) => {
    while (!state.stop) {
      const reason = `load-${state.n++}`;
      const started = Date.now();
      const o = await call(to, 'switch_mode', { session_id: sid, new_mode_slug: state.n % 2 ? 'architect' : 'code', reason }).catch(() => null);
      if (o === null) state.cut++;
      else if (o.ok) acked.get(sid)!.push(reason);
      else refused.push({ ms: Date.now() - started, o });
    }
  });
  return {
    refused,
    get cut(): number { return state.cut; },
    acknowledged: (): number => [...acked.values()].flat().length,
    async stop(): Promise<void> { state.stop = true; await Promise.all(workers); },
    /** Every acknowledged switch is in its session's history exactly once, read through `from`. */
    async assertKept(from: HttpEndpoint): Promise<void> {
      for (const [sid, reasons] of acked) {
        const task = ok(await call(from, 'get_task_info', { session_id: sid }), 'get_task_info').task as { mode_history: { reason?: string }[] };
        const kept = task.mode_history.map((h) => h.reason ?? '');
        assert.deepEqual(reasons.filter((r) => !kept.includes(r)), [], `acknowledged switches of ${sid} missing`);
        assert.equal(new Set(kept).size, kept.length, `no switch of ${sid} applied twice`);
      }
    },
  };
}

/** `count` new tasks in code mode, created through `to`; their session ids. */
export async function newSessions(to: HttpEndpoint, count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(ok(await call(to, 'create_task', { mode_slug: 'code', initial_message: `load ${i}` }), 'create_task').session_id as string);
  return out;
}
