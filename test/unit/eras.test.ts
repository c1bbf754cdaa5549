// Unit tests of the era tables and rules (src/mcp/eras.ts): the method table matches the handlers,
// the caching table covers what 2026-07-28 requires, admission and result decoration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CACHE_HINTS, ERA_METHODS, META, MODERN_VERSIONS, admit, resourceError, resultDecoration, servedIn } from '../../src/mcp/eras.js';
import { McpServer } from '../../src/mcp/server.js';
import { PreSerialized } from '../../src/rpc/dispatch.js';
import { ModeNotFoundError, RpcError, ValidationError } from '../../src/rpc/errors.js';
import { silentLogger } from '../../src/log.js';

const meta = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  _meta: { [META.protocolVersion]: '2026-07-28', [META.clientCapabilities]: {}, ...extra },
});
const codeOf = (v: unknown): number | undefined => (v instanceof RpcError ? v.code : undefined);

test('the era table names exactly the methods the server has handlers for', () => {
  const server = new McpServer({
    version: '0', services: () => Promise.reject(new Error('unused')), modes: () => Promise.reject(new Error('unused')), listing: () => Promise.reject(new Error('unused')),
    preload: false, sink: { level: 'error', write: () => {}, forward: null }, log: silentLogger,
  });
  const table = server.methods();
  const handled = [...table.requests.keys(), ...table.notifications.keys()].sort();
  assert.deepEqual(Object.keys(ERA_METHODS).sort(), handled);
  for (const [method, eras] of Object.entries(ERA_METHODS)) assert.ok(eras.legacy || eras.stateless, `${method} is served somewhere`);
});

test('every result 2026-07-28 calls cacheable has hints, and hints are only on stateless methods', () => {
  for (const method of ['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']) {
    assert.ok(CACHE_HINTS[method], `${method} has caching hints`);
  }
  for (const [method, h] of Object.entries(CACHE_HINTS)) {
    assert.ok(servedIn('stateless', method), method);
    assert.ok(Number.isSafeInteger(h.ttlMs) && h.ttlMs >= 0, `${method} ttlMs`);
    assert.ok(h.cacheScope === 'public' || h.cacheScope === 'private');
  }
  for (const method of ['resources/list', 'resources/read', 'prompts/list']) assert.equal(CACHE_HINTS[method]!.cacheScope, 'private', `${method} holds the user's modes`);
});

test('admission: undecided connections serve plain requests the legacy way and initialize is always legacy', () => {
  assert.equal(admit(null, '2025-11-25', 'tools/list', undefined), null);
  assert.equal(admit(null, '2025-11-25', 'initialize', meta()), null);
  assert.deepEqual(admit(null, '2025-11-25', 'tools/list', meta({ [META.logLevel]: 'info' })), { version: '2026-07-28', clientCapabilities: {}, logLevel: 'info' });
});

test('admission: each era refuses the other with -32600, and the stateless one checks _meta', () => {
  assert.equal(codeOf(admit('legacy', '2025-06-18', 'server/discover', undefined)), -32600);
  assert.equal(codeOf(admit('legacy', '2025-06-18', 'tools/list', meta())), -32600);
  assert.equal(admit('legacy', '2025-06-18', 'tools/list', { _meta: { progressToken: 1 } }), null);
  assert.equal(codeOf(admit('stateless', '2026-07-28', 'initialize', {})), -32600);
  assert.equal(codeOf(admit('stateless', '2026-07-28', 'ping', meta())), -32601);
  assert.equal(codeOf(admit('stateless', '2026-07-28', 'no/such', meta())), -32601);
  assert.equal(codeOf(admit('stateless', '2026-07-28', 'tools/list', {})), -32602);
  assert.equal(codeOf(admit('stateless', '2026-07-28', 'tools/list', { _meta: { [META.protocolVersion]: '2026-07-28' } })), -32602);
  assert.equal(codeOf(admit('stateless', '2026-07-28', 'tools/list', meta({ [META.logLevel]: 'Info' }))), -32602, 'wire levels are exact');
  const old = admit('stateless', '2026-07-28', 'tools/list', meta({ [META.protocolVersion]: '2025-11-25' }));
  assert.ok(old instanceof RpcError);
  assert.deepEqual(old.toWire(), { code: -32022, message: 'Unsupported protocol version', data: { supported: [...MODERN_VERSIONS], requested: '2025-11-25' } });
});

test('decoration adds resultType, serverInfo and the hints, to objects and to pre-serialised text alike', () => {
  const info = { name: 'n', version: '1' };
  const hints = { ttlMs: CACHE_HINTS['tools/list']!.ttlMs, cacheScope: CACHE_HINTS['tools/list']!.cacheScope };
  const pre = resultDecoration('tools/list', info)(new PreSerialized('{"tools":[]}'));
  assert.ok(pre instanceof PreSerialized);
  assert.deepEqual(JSON.parse(pre.json), { resultType: 'complete', _meta: { [META.serverInfo]: info }, ...hints, tools: [] });
  const empty = resultDecoration('tools/call', info)(new PreSerialized('{ }')) as PreSerialized;
  assert.deepEqual(JSON.parse(empty.json), { resultType: 'complete', _meta: { [META.serverInfo]: info } });
  assert.deepEqual(resultDecoration('subscriptions/listen', info)({ _meta: { [META.subscriptionId]: 3 } }),
    { resultType: 'complete', _meta: { [META.subscriptionId]: 3, [META.serverInfo]: info } });
  assert.deepEqual(resultDecoration('prompts/get', info)(undefined), { resultType: 'complete', _meta: { [META.serverInfo]: info } });
});

test('a resource error is the legacy one in the legacy era and -32602 with data.uri in the stateless one', () => {
  const missing = new ModeNotFoundError('ghost', ['code']);
  assert.equal(resourceError(false, 'mode://ghost', missing), missing);
  const wire = resourceError(true, 'mode://ghost', missing).toWire();
  assert.equal(wire.code, -32602);
  assert.equal(wire.message, 'Resource not found: "mode://ghost". Mode not found: "ghost". Available modes: code');
  assert.deepEqual((wire.data as Record<string, unknown>).uri, 'mode://ghost');
  const bad = resourceError(true, 'x:y', new ValidationError('Invalid resource URI "x:y": expected mode://…', { message: 'expected mode://…' })).toWire();
  assert.equal(bad.code, -32602);
  assert.equal((bad.data as Record<string, unknown>).uri, 'x:y');
});
