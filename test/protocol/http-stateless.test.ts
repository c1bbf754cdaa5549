// Protocol tests of the 2026-07-28 door over real sockets: mirrored headers checked against the
// body (-32020, 400), the statuses of -32022/-32602/-32601, subscriptions/listen as a long-lived
// SSE stream, and closing a response stream as cancellation. Messages must pass the official schema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './harness.js';
import { META_2026, startHttp } from './http-harness.js';

const HEADERS = { 'mcp-protocol-version': '2026-07-28' };
const body = (id: number, method: string, params: Record<string, unknown> = {}): unknown => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META_2026 } });

test('mirrored headers must match the body: -32020 with 400, carrying the request id', async (t) => {
  const s = await startHttp(t);
  const ok = await s.modern(1, 'tools/list');
  assert.equal(ok.status, 200, ok.body);
  assert.ok(Array.isArray(ok.messages[0]?.result?.tools));
  const cases: [string, Record<string, string>, unknown][] = [
    ['no Mcp-Method', HEADERS, body(2, 'tools/list')],
    ['Mcp-Method of another method', { ...HEADERS, 'mcp-method': 'prompts/list' }, body(3, 'tools/list')],
    ['method values are case-sensitive', { ...HEADERS, 'mcp-method': 'TOOLS/LIST' }, body(4, 'tools/list')],
    ['no Mcp-Name on tools/call', { ...HEADERS, 'mcp-method': 'tools/call' }, body(5, 'tools/call', { name: 'list_modes', arguments: {} })],
    ['Mcp-Name of another tool', { ...HEADERS, 'mcp-method': 'tools/call', 'mcp-name': 'get_mode_info' }, body(6, 'tools/call', { name: 'list_modes', arguments: {} })],
    ['header version differs from _meta', { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' }, { jsonrpc: '2.0', id: 7, method: 'server/discover', params: { _meta: { ...META_2026, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } }],
  ];
  for (const [what, headers, b] of cases) {
    const res = await s.post(b, headers, '2026-07-28');
    assert.equal(res.status, 400, what);
    assert.equal(res.messages[0]?.error?.code, -32020, `${what}: ${res.body}`);
    assert.equal(res.messages[0]?.id, (b as { id: number }).id, `${what}: the error carries the request id`);
  }
  const encoded = await s.modern(8, 'tools/call', { name: 'list_modes', arguments: {} }, { 'mcp-name': `=?base64?${Buffer.from('list_modes').toString('base64')}?=` });
  assert.equal(encoded.status, 200, `a base64 Mcp-Name is decoded: ${encoded.body}`);
  const spaced = await s.modern(9, 'tools/call', { name: 'list_modes', arguments: {} }, { 'mcp-name': '  list_modes  ' });
  assert.equal(spaced.status, 200, 'whitespace around a header value is not part of it');
  s.assertSchemaValid();
});

test('era errors carry the statuses of the transport page', async (t) => {
  const s = await startHttp(t);
  const unsupported = await s.post({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: { ...META_2026, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } }, { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'server/discover' }, '2026-07-28');
  assert.equal(unsupported.status, 400);
  assert.equal(unsupported.messages[0]?.error?.code, -32022);
  assert.deepEqual(unsupported.messages[0]?.error?.data?.supported, ['2026-07-28']);
  const noMeta = await s.post({ jsonrpc: '2.0', id: 2, method: 'server/discover', params: {} }, { ...HEADERS, 'mcp-method': 'server/discover' }, '2026-07-28');
  assert.equal(noMeta.status, 400);
  assert.equal(noMeta.messages[0]?.error?.code, -32602);
  for (const [id, method] of [[3, 'ping'], [4, 'initialize'], [5, 'no/such/method']] as const) {
    const res = await s.modern(id, method);
    assert.equal(res.status, 404, method);
    assert.equal(res.messages[0]?.error?.code, -32601, method);
  }
  const invalidArgs = await s.modern(6, 'tools/call', { name: 'get_mode_info', arguments: {} });
  assert.equal(invalidArgs.status, 200);
  assert.equal(invalidArgs.messages[0]?.result?.isError, true, `input validation is a tool execution error in 2026-07-28: ${invalidArgs.body}`);
  assert.equal((await s.send('GET', undefined, HEADERS)).status, 405, 'no GET stream in this era');
  const discover = await s.modern(7, 'server/discover');
  assert.equal(discover.headers['mcp-session-id'], undefined, 'no session ids in this era');
  s.assertSchemaValid();
});

test('subscriptions/listen is a long-lived SSE stream: acknowledged first, then change notifications', async (t) => {
  const project = tempDir(t, 'rms-http-proj-');
  const s = await startHttp(t, ['--project-root', project]);
  assert.equal((await s.modern(1, 'prompts/list')).status, 200, 'catalogue (and watchers) started');
  const listen = await s.stream('POST', { ...HEADERS, 'mcp-method': 'subscriptions/listen' }, body(2, 'subscriptions/listen', { notifications: { promptsListChanged: true } }));
  s.methodOf.set('2', 'subscriptions/listen');
  assert.equal(listen.res.statusCode, 200);
  const ack = await listen.next(() => true, 'the first message');
  assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
  writeFileSync(join(project, '.roomodes'), 'customModes:\n  - slug: gamma\n    name: Gamma\n    roleDefinition: The gamma role.\n    groups: [read]\n');
  const changed = await listen.next((m) => m.method === 'notifications/prompts/list_changed', 'prompts list_changed on the listen stream');
  assert.equal((changed.params as { _meta?: Record<string, unknown> } | undefined)?._meta?.['io.modelcontextprotocol/subscriptionId'], 2);
  listen.close();
  s.assertSchemaValid();
});

test('closing a response stream cancels its request', async (t) => {
  const s = await startHttp(t, ['--log-level', 'debug']);
  const listen = await s.stream('POST', { ...HEADERS, 'mcp-method': 'subscriptions/listen' }, body(41, 'subscriptions/listen', { notifications: { promptsListChanged: true } }));
  await listen.next((m) => m.method === 'notifications/subscriptions/acknowledged', 'the acknowledgement');
  listen.close();
  for (let i = 0; i < 200 && !/request 41 cancelled by the client/.test(s.stderr); i++) await new Promise((r) => setTimeout(r, 25)); // waits for the server's own log line
  assert.match(s.stderr, /request 41 cancelled by the client/);
  const next = await s.modern(42, 'tools/list');
  assert.equal(next.status, 200, 'the server keeps serving');
});
