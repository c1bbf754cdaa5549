// Protocol tests of the stateless 2026-07-28 era over real pipes: discovery, per-request _meta and
// its errors, mixed-era connections, result decoration, listen streams, cancellation, removed methods.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tempDir, type Msg, type ServerProcess } from './harness.js';
import { NO_IPC_ENV } from './ipc-rig.js';
import { FakeRoo } from '../fixtures/fake-roo.js';

const V = '2026-07-28';
const ROO_EVENTS = 'io.github.roo-modes/roo-events';
const SUB_ID = 'io.modelcontextprotocol/subscriptionId';

/** The per-request _meta of this era, with extra keys (logLevel, capabilities) when given. */
export const meta = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'stateless-test', version: '1' },
  ...extra,
});

/** A stateless request: params plus _meta. */
const call = (s: ServerProcess, id: number | string, method: string, params: Record<string, unknown> = {}, extra?: Record<string, unknown>): Promise<Msg> =>
  s.call(id, method, { ...params, _meta: meta(extra) });

const roomodes = (role: string): string => `customModes:
  - slug: reviewer
    name: Reviewer
    roleDefinition: ${role}
    groups: [read]
`;

function project(t: Parameters<typeof startServer>[0]): { dir: string; file: string } {
  const dir = tempDir(t, 'rms-stateless-');
  const file = join(dir, '.roomodes');
  writeFileSync(file, roomodes('You review.'));
  return { dir, file };
}

/** A notification's params, and the subscription id in its _meta. */
const P = (m: Msg): any => m.params;
const sub = (m: Msg): unknown => P(m)?._meta?.[SUB_ID];

const errorOf = (m: Msg): { code: number; message: string; data?: any } => {
  assert.ok(m.error, `expected an error, got ${JSON.stringify(m).slice(0, 300)}`);
  return m.error;
};

const after = (s: ServerProcess, from: number, pred: (m: Msg) => boolean, what: string): Promise<Msg> =>
  s.waitFor((m) => s.messages.indexOf(m) >= from && pred(m), 8000, what);

test('server/discover answers versions, capabilities, instructions and caching hints, and picks the stateless era', async (t) => {
  const s = startServer(t);
  const res = (await call(s, 'd', 'server/discover')).result;
  assert.equal(res.resultType, 'complete');
  assert.deepEqual(res.supportedVersions, [V]);
  assert.deepEqual(res.capabilities.resources, { listChanged: true }, 'listen replaces subscribe');
  assert.ok(res.capabilities.tools && res.capabilities.prompts);
  assert.match(res.instructions, /Roo Code modes/);
  assert.equal(res.ttlMs, 3_600_000);
  assert.equal(res.cacheScope, 'public');
  assert.equal(res._meta['io.modelcontextprotocol/serverInfo'].name, 'roo-modes-server');
  assert.equal(errorOf(await s.call(2, 'initialize', { protocolVersion: '2025-11-25', capabilities: {} })).code, -32600);
  assert.deepEqual(await s.end(), { code: 0, signal: null });
  s.assertStdoutPure();
});

test('every result carries resultType and serverInfo; lists and reads carry ttlMs and cacheScope', async (t) => {
  const { dir } = project(t);
  const s = startServer(t, { args: ['--project-root', dir] });
  const expected: Array<[string, Record<string, unknown>, number | undefined, string | undefined]> = [
    ['tools/list', {}, 3_600_000, 'public'],
    ['resources/templates/list', {}, 3_600_000, 'public'],
    ['resources/list', {}, 5_000, 'private'],
    ['resources/read', { uri: 'mode://reviewer' }, 5_000, 'private'],
    ['prompts/list', {}, 5_000, 'private'],
    ['prompts/get', { name: 'reviewer' }, undefined, undefined],
    ['tools/call', { name: 'list_modes', arguments: {} }, undefined, undefined],
    ['completion/complete', { ref: { type: 'ref/resource', uri: 'mode://{slug}' }, argument: { name: 'slug', value: 're' } }, undefined, undefined],
  ];
  let id = 0;
  for (const [method, params, ttl, scope] of expected) {
    const res = (await call(s, ++id, method, params)).result;
    assert.ok(res, `${method} answered a result`);
    assert.equal(res.resultType, 'complete', method);
    assert.deepEqual(res._meta['io.modelcontextprotocol/serverInfo'], { name: 'roo-modes-server', version: res._meta['io.modelcontextprotocol/serverInfo'].version });
    assert.equal(res.ttlMs, ttl, `${method} ttlMs`);
    assert.equal(res.cacheScope, scope, `${method} cacheScope`);
  }
  assert.deepEqual(await s.end(), { code: 0, signal: null });
});

test('a request without its _meta fields is -32602; an unknown version is -32022 with supported and requested', async (t) => {
  const s = startServer(t);
  const bare = errorOf(await s.call(1, 'server/discover', {}));
  assert.equal(bare.code, -32602);
  assert.match(bare.data.message, /protocolVersion/);
  const noCaps = errorOf(await s.call(2, 'server/discover', { _meta: { 'io.modelcontextprotocol/protocolVersion': V } }));
  assert.equal(noCaps.code, -32602);
  assert.equal(noCaps.data.key, 'io.modelcontextprotocol/clientCapabilities');
  const old = errorOf(await s.call(3, 'tools/list', { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }) }));
  assert.equal(old.code, -32022);
  assert.deepEqual(old.data, { supported: [V], requested: '1900-01-01' });
  // Rejected requests decide nothing: the connection can still choose the legacy era.
  assert.equal((await s.initialize('2025-06-18')).result.protocolVersion, '2025-06-18');
  assert.deepEqual(await s.end(), { code: 0, signal: null });
});

test('once stateless, requests without _meta, a bad logLevel and initialize get precise errors', async (t) => {
  const s = startServer(t);
  await call(s, 1, 'server/discover');
  const plain = errorOf(await s.call(2, 'tools/list'));
  assert.equal(plain.code, -32602);
  assert.match(plain.message, /tools\/list needs params\._meta/);
  const level = errorOf(await call(s, 3, 'tools/list', {}, { 'io.modelcontextprotocol/logLevel': 'LOUD' }));
  assert.equal(level.code, -32602);
  assert.equal(level.data.key, 'io.modelcontextprotocol/logLevel');
  const init = errorOf(await s.call(4, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }));
  assert.equal(init.code, -32600);
  assert.deepEqual(init.data.supported, [V]);
  assert.ok((await call(s, 5, 'tools/list')).result, 'still serving');
  assert.deepEqual(await s.end(), { code: 0, signal: null });
});

test('a legacy connection refuses 2026-07-28 requests with -32600 and keeps its own answers undecorated', async (t) => {
  const s = startServer(t);
  await s.initialize('2025-11-25');
  for (const [id, method] of [[1, 'server/discover'], [2, 'tools/list'], [3, 'subscriptions/listen']] as const) {
    const err = errorOf(await call(s, id, method, { notifications: {} }));
    assert.equal(err.code, -32600, method);
    assert.equal(err.data.connection_protocol_version, '2025-11-25');
  }
  const legacy = (await s.call(4, 'tools/list')).result;
  assert.equal(legacy.resultType, undefined);
  assert.equal(legacy._meta, undefined);
  assert.deepEqual((await s.call(5, 'ping')).result, {});
  assert.deepEqual(await s.end(), { code: 0, signal: null });
});

test('the methods removed in 2026-07-28 are -32601, and no request is ever sent to the client', async (t) => {
  const s = startServer(t);
  await call(s, 0, 'server/discover', {}, { 'io.modelcontextprotocol/clientCapabilities': { roots: {} } });
  for (const [id, method, params] of [[1, 'ping', {}], [2, 'logging/setLevel', { level: 'debug' }], [3, 'resources/subscribe', { uri: 'mode://code' }], [4, 'resources/unsubscribe', { uri: 'mode://code' }]] as const) {
    const err = errorOf(await call(s, id, method, params));
    assert.equal(err.code, -32601, method);
    assert.match(err.data, /not part of protocol 2026-07-28/);
  }
  s.notify('notifications/initialized');
  assert.ok((await call(s, 5, 'resources/list')).result);
  assert.deepEqual(s.messages.filter((m) => typeof m.method === 'string' && 'id' in m), [], 'no server→client request');
  assert.deepEqual(await s.end(), { code: 0, signal: null });
});

test('resources/read of a missing mode or a bad URI is -32602 with data.uri', async (t) => {
  const s = startServer(t);
  const missing = errorOf(await call(s, 1, 'resources/read', { uri: 'mode://ghost/config' }));
  assert.equal(missing.code, -32602);
  assert.match(missing.message, /^Resource not found: "mode:\/\/ghost\/config"\. Mode not found: "ghost"\. Available modes: code, /);
  assert.equal(missing.data.uri, 'mode://ghost/config');
  assert.ok(missing.data.available_modes.includes('code'));
  const bad = errorOf(await call(s, 2, 'resources/read', { uri: 'file:///etc/passwd' }));
  assert.equal(bad.code, -32602);
  assert.equal(bad.data.uri, 'file:///etc/passwd');
  // The app codes keep their meaning for tools.
  assert.equal(errorOf(await call(s, 3, 'tools/call', { name: 'get_mode_info', arguments: { mode_slug: 'ghost' } })).code, -32001);
  assert.deepEqual(await s.end(), { code: 0, signal: null });
});

test('logs reach a request only when its _meta asks, at or above its level, before its answer', async (t) => {
  const { dir } = project(t);
  const s = startServer(t, { args: ['--project-root', dir] });
  const quiet = await call(s, 1, 'tools/call', { name: 'orchestrator_mode_create', arguments: { mode_name: 'quiet' } });
  assert.ok(quiet.result && !quiet.result.isError);
  const from = s.messages.length;
  const loud = await call(s, 2, 'tools/call', { name: 'orchestrator_mode_create', arguments: { mode_name: 'loud' } }, { 'io.modelcontextprotocol/logLevel': 'debug' });
  assert.ok(loud.result && !loud.result.isError);
  const logs = s.messages.slice(from).filter((m) => m.method === 'notifications/message');
  assert.ok(logs.some((m) => JSON.stringify(m.params).includes('loud')), 'the debug record of the request reached the client');
  assert.ok(s.messages.indexOf(logs[0]!) < s.messages.indexOf(loud), 'logs come before the answer');
  assert.ok(!s.messages.slice(0, from).some((m) => m.method === 'notifications/message'), 'nothing for the request without logLevel');
  const strict = s.messages.length;
  await call(s, 3, 'tools/call', { name: 'orchestrator_mode_create', arguments: { mode_name: 'strict' } }, { 'io.modelcontextprotocol/logLevel': 'info' });
  assert.deepEqual(s.messages.slice(strict).filter((m) => m.method === 'notifications/message'), [], 'debug records stay below an info level');
  assert.deepEqual(await s.end(), { code: 0, signal: null });
});

test('subscriptions/listen acknowledges first, delivers a mode-file edit, and stops after cancellation', async (t) => {
  const { dir, file } = project(t);
  const s = startServer(t, { args: ['--project-root', dir] });
  await call(s, 0, 'resources/list'); // the watcher is up once the catalogue has loaded
  const filter = { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['mode://reviewer', 'https://elsewhere/x'] };
  s.request('A', 'subscriptions/listen', { notifications: filter, _meta: meta() });
  s.request(7, 'subscriptions/listen', { notifications: { resourcesListChanged: true }, _meta: meta() });
  const ack = await s.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged' && sub(m) === 'A', 5000, 'ack A');
  assert.deepEqual(P(ack).notifications, { promptsListChanged: true, resourceSubscriptions: ['mode://reviewer'] }, 'only what we honour');
  await s.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged' && sub(m) === 7, 5000, 'ack 7');

  const before = s.messages.length;
  writeFileSync(file, roomodes('You review, and say why.'));
  const updated = await after(s, before, (m) => m.method === 'notifications/resources/updated', 'resources/updated');
  assert.deepEqual(updated.params, { _meta: { [SUB_ID]: 'A' }, uri: 'mode://reviewer' });
  await after(s, before, (m) => m.method === 'notifications/prompts/list_changed' && sub(m) === 'A', 'prompts changed on A');
  await after(s, before, (m) => m.method === 'notifications/resources/list_changed' && sub(m) === 7, 'resources changed on 7');
  assert.ok(!s.messages.slice(before).some((m) => m.method === 'notifications/tools/list_changed'));

  // Cancel A: no answer for it, and no more notifications for it; 7 still hears the next edit.
  s.notify('notifications/cancelled', { requestId: 'A', reason: 'done' });
  await call(s, 1, 'tools/list');
  const second = s.messages.length;
  writeFileSync(file, roomodes('You review, say why, and suggest.'));
  await after(s, second, (m) => m.method === 'notifications/resources/list_changed' && sub(m) === 7, 'second change on 7');
  await call(s, 2, 'tools/list');
  const forA = s.messages.filter((m) => m.id === 'A' || (sub(m) === 'A' && s.messages.indexOf(m) >= second));
  assert.deepEqual(forA, [], 'nothing written for the cancelled listen');

  // At the end of input the open stream gets its graceful result, carrying its subscription id.
  assert.deepEqual(await s.end(), { code: 0, signal: null });
  const closing = s.messages.find((m) => m.id === 7);
  assert.ok(closing?.result, 'listen 7 ended with a result');
  assert.equal(closing.result._meta[SUB_ID], 7);
  assert.equal(closing.result.resultType, 'complete');
  s.assertStdoutPure();
});

test('task sessions carry across independent stateless requests by session_id', async (t) => {
  const s = startServer(t);
  const created = (await call(s, 1, 'tools/call', { name: 'create_task', arguments: { mode_slug: 'ask', initial_message: 'Explain' } })).result;
  const sessionId = created.structuredContent.session_id;
  assert.match(sessionId, /^ses_[0-9a-f]{24}$/);
  const refused = (await call(s, 2, 'tools/call', { name: 'validate_tool_use', arguments: { session_id: sessionId, tool_name: 'write_to_file' } })).result;
  assert.equal(refused.structuredContent.allowed, false);
  await call(s, 3, 'tools/call', { name: 'switch_mode', arguments: { session_id: sessionId, new_mode_slug: 'code' } });
  const allowed = (await call(s, 4, 'tools/call', { name: 'validate_tool_use', arguments: { session_id: sessionId, tool_name: 'write_to_file' } })).result;
  assert.equal(allowed.structuredContent.allowed, true);
  const unknown = errorOf(await call(s, 5, 'tools/call', { name: 'get_task_info', arguments: { session_id: 'ses_000000000000000000000000' } }));
  assert.equal(unknown.code, -32002);
  assert.deepEqual(await s.end(), { code: 0, signal: null });
});

test('a cancelled tool call is never answered; Roo events reach only listen streams that declared the extension', async (t) => {
  const dir = tempDir(t, 'rms-stateless-ipc-');
  const socket = join(dir, 'roo.sock');
  const fake = new FakeRoo({ path: socket, answerQueries: false });
  await fake.listen();
  t.after(() => fake.close());
  const cfg = join(dir, 'config.json');
  writeFileSync(cfg, JSON.stringify({ ipc: { socket_path: socket, query_timeout_ms: 60000 } }));
  const s = startServer(t, { args: ['--config', cfg], env: NO_IPC_ENV });

  const refused = errorOf(await call(s, 1, 'subscriptions/listen', { notifications: { [ROO_EVENTS]: true } }));
  assert.equal(refused.code, -32021);
  assert.deepEqual(refused.data.requiredCapabilities, { extensions: { [ROO_EVENTS]: {} } });
  const discovered = (await call(s, 2, 'server/discover')).result;
  // Beside ours, MCP Apps (the modes view), which discovery lists to every client.
  assert.deepEqual(discovered.capabilities.extensions, { [ROO_EVENTS]: {}, 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } });
  s.request('R', 'subscriptions/listen', { notifications: { [ROO_EVENTS]: true }, _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': { extensions: { [ROO_EVENTS]: {} } } }) });
  const ack = await s.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged', 5000, 'ack');
  assert.deepEqual(P(ack).notifications, { [ROO_EVENTS]: true });

  const asked = fake.nextCommand('GetModes');
  s.request(41, 'tools/call', { name: 'roo_ipc_get_modes', arguments: {}, _meta: meta() });
  await asked;
  s.notify('notifications/cancelled', { requestId: 41, reason: 'gave up' });
  await call(s, 4, 'tools/list'); // answered in order: the cancellation has been handled
  fake.broadcast('modesResponse', [[{ slug: 'late', name: 'Late' }]]);
  const event = await s.waitFor((m) => m.method === 'notifications/roo/event', 5000, 'a Roo event on the stream');
  assert.equal(sub(event), 'R');
  await call(s, 3, 'tools/list');
  assert.deepEqual(await s.end(), { code: 0, signal: null });
  assert.deepEqual(s.messages.filter((m) => m.id === 41), [], 'the cancelled call got no answer');
});
