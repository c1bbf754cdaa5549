// The roo_ipc_* tools against the fake Roo peer, plus the invariants of their schema files.
import * as assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { RooBridge } from '../../src/ipc/bridge.js';
import { IPC_TOOLS } from '../../src/ipc/tools.js';
import { silentLogger } from '../../src/log.js';
import { bindTools, type ToolCallContext, type ToolFamily, type ToolResult } from '../../src/mcp/tool-types.js';
import { ValidationError } from '../../src/rpc/errors.js';
import { FakeRoo, waitUntil, type FakeRooOptions } from '../fixtures/fake-roo.js';

const schemaDir = new URL('../../schemas/tools/', import.meta.url);
const ALLOWED_KEYWORDS = new Set(['type', 'properties', 'required', 'additionalProperties', 'enum', 'const', 'items', 'minItems', 'maxItems',
  'minLength', 'maxLength', 'minimum', 'maximum', 'pattern', 'anyOf', 'oneOf', 'description', 'default']);

type Schema = Record<string, unknown>;
const isRecord = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

function loadSchema(name: string): Schema {
  const doc: unknown = JSON.parse(readFileSync(new URL(`${name}.json`, schemaDir), 'utf8'));
  if (!isRecord(doc)) throw new Error(`${name}.json is not an object`);
  return doc;
}

/** Every keyword used anywhere in a schema (property names under `properties` are not keywords). */
function keywords(schema: unknown, out = new Set<string>()): Set<string> {
  if (!isRecord(schema)) return out;
  for (const [key, value] of Object.entries(schema)) {
    out.add(key);
    if (key === 'properties' && isRecord(value)) for (const sub of Object.values(value)) keywords(sub, out);
    else if (key === 'items') keywords(value, out);
    else if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) for (const sub of value) keywords(sub, out);
  }
  return out;
}

/** Fails when metadata misses a key the tool's outputSchema lists as always present. */
function assertMatchesOutput(name: string, result: ToolResult): void {
  const output = loadSchema(name).outputSchema;
  assert.ok(isRecord(output) && Array.isArray(output.required));
  for (const key of output.required) assert.ok(Object.hasOwn(result.metadata, String(key)), `${name} metadata lacks ${String(key)}`);
  assert.equal(typeof result.text, 'string');
  assert.ok(result.text.length > 0);
}

function ctx(signal: AbortSignal = new AbortController().signal): ToolCallContext {
  return { signal, protocolVersion: '2025-11-25', progress() {} };
}

async function call(tools: ToolFamily, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  const handler = tools[name];
  if (!handler) throw new Error(`no handler ${name}`);
  const result = await handler(args, ctx());
  assertMatchesOutput(name, result);
  return result;
}

async function connected(t: TestContext, fakeOpts: FakeRooOptions = {}): Promise<{ fake: FakeRoo; tools: ToolFamily; bridge: RooBridge; clientId: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'roo-ipc-tools-'));
  const path = join(dir, 'roo.sock');
  const fake = new FakeRoo({ path, ...fakeOpts });
  await fake.listen();
  const bridge = new RooBridge({ socketPath: path, host: null, port: null, queueLimit: 100, queryTimeoutMs: 200, log: silentLogger });
  t.after(async () => { await bridge.close(); await fake.close(); rmSync(dir, { recursive: true, force: true }); });
  const acked = fake.nextClient();
  bridge.start();
  const clientId = await acked;
  await waitUntil(() => bridge.ready, 'the bridge is ready');
  return { fake, tools: bindTools(IPC_TOOLS, bridge), bridge, clientId };
}

test('every roo_ipc tool has exactly one schema file of the agreed shape', () => {
  const tools = bindTools(IPC_TOOLS, new RooBridge({ socketPath: null, host: null, port: null, queueLimit: 1, queryTimeoutMs: 1, log: silentLogger }));
  const files = readdirSync(schemaDir).filter((f) => f.startsWith('roo_ipc_')).map((f) => f.replace(/\.json$/, '')).sort();
  assert.deepEqual(Object.keys(tools).sort(), files);
  for (const name of files) {
    const doc = loadSchema(name);
    assert.deepEqual(Object.keys(doc), ['name', 'title', 'description', 'annotations', 'inputSchema', 'outputSchema'], name);
    assert.equal(doc.name, name);
    assert.ok(isRecord(doc.annotations));
    assert.deepEqual(Object.keys(doc.annotations).sort(), ['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint'], name);
    const input = doc.inputSchema;
    assert.ok(isRecord(input));
    assert.equal(input.type, 'object');
    assert.equal(input.additionalProperties, false, `${name} input must be closed`);
    assert.ok(Array.isArray(input.required));
    const output = doc.outputSchema;
    assert.ok(isRecord(output));
    assert.equal(output.type, 'object');
    assert.equal('additionalProperties' in output, false, `${name} output must stay open`);
    for (const schema of [input, output]) {
      for (const k of keywords(schema)) assert.ok(ALLOWED_KEYWORDS.has(k), `${name} uses keyword ${k}`);
      assert.ok(isRecord(schema.properties));
      for (const r of schema.required as unknown[]) assert.ok(Object.hasOwn(schema.properties, String(r)), `${name} requires unknown ${String(r)}`);
    }
  }
  assert.match(String(loadSchema('roo_ipc_close_task').description), /closing the whole VS Code window/);
});

test('roo_ipc_status reports connection, clientId, pid and queues', async (t) => {
  const { fake, tools, clientId } = await connected(t);
  const r = await call(tools, 'roo_ipc_status');
  assert.equal(r.metadata.connected, true);
  assert.equal(r.metadata.clientId, clientId);
  assert.equal(r.metadata.serverPid, fake.pid);
  assert.deepEqual(r.metadata.queued, { messages: 0, other: 0 });
  assert.match(r.text, new RegExp(clientId));
});

test('roo_ipc_start_task sends an empty configuration when none is given, so Roo accepts it', async (t) => {
  const { fake, tools, clientId } = await connected(t);
  const got = fake.nextCommand('StartNewTask');
  const r = await call(tools, 'roo_ipc_start_task', { text: 'write a haiku' });
  const cmd = await got;
  assert.equal(cmd.valid, true);
  assert.equal(cmd.clientId, clientId);
  assert.deepEqual(cmd.data, { configuration: {}, text: 'write a haiku' });
  assert.equal('taskId' in r.metadata, false);
  assert.equal(r.metadata.waited, false);
});

test('roo_ipc_start_task passes configuration, images and new_tab, and waits for the task id', async (t) => {
  const { fake, tools } = await connected(t);
  const got = fake.nextCommand('StartNewTask');
  const r = await call(tools, 'roo_ipc_start_task', {
    text: 'plan it', images: ['data:image/png;base64,AAAA'], configuration: { mode: 'architect' }, new_tab: true, wait_for_start: true,
  });
  assert.deepEqual((await got).data, { configuration: { mode: 'architect' }, text: 'plan it', images: ['data:image/png;base64,AAAA'], newTab: true });
  assert.equal(r.metadata.taskId, fake.startedTasks[0]);
  assert.equal(r.metadata.startEvent, 'taskCreated');
  assert.equal(r.metadata.timedOut, false);
  assert.match(r.text, new RegExp(String(fake.startedTasks[0])));
});

test('roo_ipc_start_task reports a start that was not announced in time without failing', async (t) => {
  const { fake, tools } = await connected(t, { announceTasks: false });
  const r = await call(tools, 'roo_ipc_start_task', { text: 'x', wait_for_start: true });
  assert.equal(fake.startedTasks.length, 1, 'the command reached Roo');
  assert.deepEqual({ hasTaskId: 'taskId' in r.metadata, timedOut: r.metadata.timedOut, waited: r.metadata.waited }, { hasTaskId: false, timedOut: true, waited: true });
  assert.match(r.text, /may still start/);
});

test('roo_ipc_send_message sends text and images and refuses an empty message', async (t) => {
  const { fake, tools } = await connected(t);
  const got = fake.nextCommand('SendMessage');
  const r = await call(tools, 'roo_ipc_send_message', { text: 'yes, go ahead', images: ['data:image/png;base64,BB'] });
  assert.deepEqual((await got).data, { text: 'yes, go ahead', images: ['data:image/png;base64,BB'] });
  assert.deepEqual(r.metadata, { sent: true, command: 'SendMessage', clientId: r.metadata.clientId });
  await assert.rejects(async () => call(tools, 'roo_ipc_send_message', {}), ValidationError);
});

test('cancel, close, resume and delete-queued send their commands with the right data', async (t) => {
  const { fake, tools, clientId } = await connected(t);
  const cases: Array<[string, Record<string, unknown>, string, unknown]> = [
    ['roo_ipc_cancel_task', {}, 'CancelTask', undefined],
    ['roo_ipc_close_task', {}, 'CloseTask', undefined],
    ['roo_ipc_resume_task', { task_id: 'task-9' }, 'ResumeTask', 'task-9'],
    ['roo_ipc_delete_queued_message', { message_id: 'msg-3' }, 'DeleteQueuedMessage', 'msg-3'],
  ];
  for (const [tool, args, commandName, data] of cases) {
    const got = fake.nextCommand(commandName);
    const r = await call(tools, tool, args);
    const cmd = await got;
    assert.deepEqual({ name: cmd.commandName, data: cmd.data, clientId: cmd.clientId, valid: cmd.valid }, { name: commandName, data, clientId, valid: true }, tool);
    assert.equal(r.metadata.command, commandName);
  }
});

test('roo_ipc_get_modes, get_commands and get_models return what Roo answered', async (t) => {
  const { fake, tools } = await connected(t, { modes: [{ slug: 'code', name: '💻 Code' }, { slug: 'code', name: 'Custom Code' }] });
  const modes = await call(tools, 'roo_ipc_get_modes');
  assert.deepEqual(modes.metadata, { modes: fake.modes, count: 2 });
  const commands = await call(tools, 'roo_ipc_get_commands');
  assert.deepEqual(commands.metadata, { commands: [{ name: 'review', source: 'project', description: 'Review the diff' }], count: 1 });
  const models = await call(tools, 'roo_ipc_get_models');
  assert.equal(models.metadata.count, 1);
  assert.ok(isRecord(models.metadata.models) && 'roo/sonic' in models.metadata.models);
});

test('a get tool fails with a timeout error when Roo never answers', async (t) => {
  const { tools } = await connected(t, { answerQueries: false });
  await assert.rejects(async () => call(tools, 'roo_ipc_get_modes'), (err: unknown) => err instanceof ValidationError && /did not answer GetModes/.test(err.message));
});

test('a get tool stops waiting when its request is cancelled', async (t) => {
  const { tools } = await connected(t, { answerQueries: false });
  const controller = new AbortController();
  const handler = tools.roo_ipc_get_commands;
  assert.ok(handler);
  const pending = Promise.resolve(handler({}, ctx(controller.signal)));
  controller.abort();
  await assert.rejects(pending, (err: unknown) => err instanceof ValidationError && /cancelled/.test(err.message));
});

test('poll tools remove what they return, honour limit, and flag a streaming message', async (t) => {
  const { fake, tools, bridge } = await connected(t);
  fake.streamMessage({ taskId: 't', ts: 1, text: 'a', partial: false, action: 'created' });
  fake.streamMessage({ taskId: 't', ts: 2, text: 'b', partial: true, action: 'created' });
  fake.broadcast('taskStarted', ['t']);
  fake.broadcast('taskModeSwitched', ['t', 'debug']);
  await waitUntil(() => bridge.status().queued.messages === 2 && bridge.status().queued.other === 2, 'four events arrived');
  const first = await call(tools, 'roo_ipc_poll_ai_messages', {});
  assert.equal((first.metadata.events as unknown[]).length, 1, 'limit defaults to 1');
  assert.equal(first.metadata.isPartial, false);
  assert.equal(first.metadata.remaining, 1);
  const second = await call(tools, 'roo_ipc_poll_ai_messages', { limit: 5 });
  assert.equal(second.metadata.isPartial, true);
  assert.match(second.text, /still streaming/);
  const other = await call(tools, 'roo_ipc_poll_other_events', { limit: 10 });
  assert.deepEqual(other.metadata, {
    events: [{ eventName: 'taskStarted', payload: ['t'] }, { eventName: 'taskModeSwitched', payload: ['t', 'debug'] }],
    dropped: 0, remaining: 0,
  });
  assert.deepEqual((await call(tools, 'roo_ipc_poll_other_events', {})).metadata.events, []);
});

test('every tool that talks to Roo fails at once with -32004 and a hint while disconnected; status and polls still answer', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'roo-ipc-tools-'));
  const bridge = new RooBridge({ socketPath: join(dir, 'absent.sock'), host: null, port: null, queueLimit: 10, queryTimeoutMs: 60_000, log: silentLogger });
  t.after(async () => { await bridge.close(); rmSync(dir, { recursive: true, force: true }); });
  bridge.start();
  await waitUntil(() => bridge.status().lastError !== null, 'the first attempt failed');
  const tools = bindTools(IPC_TOOLS, bridge);
  const talking: Array<[string, Record<string, unknown>]> = [
    ['roo_ipc_start_task', { text: 'x', wait_for_start: true }], ['roo_ipc_send_message', { text: 'x' }],
    ['roo_ipc_cancel_task', {}], ['roo_ipc_close_task', {}], ['roo_ipc_resume_task', { task_id: 't' }],
    ['roo_ipc_delete_queued_message', { message_id: 'm' }], ['roo_ipc_get_modes', {}], ['roo_ipc_get_commands', {}], ['roo_ipc_get_models', {}],
  ];
  for (const [name, args] of talking) {
    await assert.rejects(async () => call(tools, name, args), (err: unknown) => {
      assert.ok(err instanceof ValidationError, name);
      assert.equal(err.code, -32004);
      assert.match(err.message, /Not connected to Roo Code .*ENOENT/, name);
      assert.match(JSON.stringify(err.data), /ROO_CODE_IPC_SOCKET_PATH/);
      return true;
    });
  }
  const status = await call(tools, 'roo_ipc_status');
  assert.equal(status.metadata.connected, false);
  assert.match(status.text, /not connected/);
  assert.deepEqual((await call(tools, 'roo_ipc_poll_ai_messages', { limit: 3 })).metadata, { events: [], isPartial: false, dropped: 0, remaining: 0 });
});
