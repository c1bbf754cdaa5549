// Unit tests of JSON-RPC classification (src/rpc/jsonrpc.ts): what an incoming value is, or which
// -32600 it deserves and which id that error can echo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classify, isRecord, isValidId, type Classified } from '../../src/rpc/jsonrpc.js';
import { InvalidRequestError, RpcError } from '../../src/rpc/errors.js';

/** Asserts an invalid classification and returns it narrowed. */
function expectInvalid(value: unknown, id: string | number | null, detail?: RegExp): Extract<Classified, { kind: 'invalid' }> {
  const c = classify(value);
  assert.equal(c.kind, 'invalid', `expected invalid for ${JSON.stringify(value)}, got ${c.kind}`);
  if (c.kind !== 'invalid') throw new Error('unreachable');
  assert.equal(c.id, id);
  assert.ok(c.error instanceof InvalidRequestError);
  assert.ok(c.error instanceof RpcError);
  assert.equal(c.error.code, -32600);
  assert.equal(c.error.message, 'Invalid Request');
  assert.equal(typeof c.error.data, 'string', 'the reason travels as data');
  if (detail) assert.match(String(c.error.data), detail);
  return c;
}

test('isValidId accepts strings and safe integers only', () => {
  for (const ok of ['', 'abc', '1', 0, 1, -7, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) {
    assert.equal(isValidId(ok), true, `accepts ${JSON.stringify(ok)}`);
  }
  for (const bad of [null, undefined, true, false, 1.5, -0.1, 2 ** 53, -(2 ** 53), Number.NaN, Number.POSITIVE_INFINITY, {}, [], [1], 1n]) {
    assert.equal(isValidId(bad), false, `rejects ${String(bad)}`);
  }
});

test('isRecord accepts plain objects only', () => {
  assert.equal(isRecord({}), true);
  assert.equal(isRecord({ a: 1 }), true);
  for (const bad of [null, [], 'x', 1, undefined, true]) assert.equal(isRecord(bad), false);
});

test('answers any non-object value with -32600 and id null', () => {
  for (const v of [null, 1, 'ping', true, false, [], [{ jsonrpc: '2.0', id: 1, method: 'ping' }]]) {
    expectInvalid(v, null, /expected a JSON-RPC object/);
  }
});

test('rejects a missing or wrong "jsonrpc" member, keeping the id it can recover', () => {
  expectInvalid({ id: 1, method: 'ping' }, 1, /"jsonrpc" must be "2.0"/);
  expectInvalid({ jsonrpc: '1.0', id: 'a', method: 'ping' }, 'a', /"1.0"/);
  expectInvalid({ jsonrpc: 2.0, id: 3, method: 'ping' }, 3);
  expectInvalid({ jsonrpc: null, method: 'ping' }, null);
});

test('rejects a non-string "method", keeping the id', () => {
  expectInvalid({ jsonrpc: '2.0', id: 4, method: 5 }, 4, /"method" must be a string/);
  expectInvalid({ jsonrpc: '2.0', id: 'x', method: null }, 'x', /null/);
  expectInvalid({ jsonrpc: '2.0', method: ['ping'] }, null, /array/);
});

test('rejects params that are not an object (array, string, number, null), keeping the id', () => {
  expectInvalid({ jsonrpc: '2.0', id: 5, method: 'ping', params: [1, 2] }, 5, /"params" must be an object, got array/);
  expectInvalid({ jsonrpc: '2.0', id: 6, method: 'ping', params: 'x' }, 6, /string/);
  expectInvalid({ jsonrpc: '2.0', id: 7, method: 'ping', params: 3 }, 7, /number/);
  expectInvalid({ jsonrpc: '2.0', id: 8, method: 'ping', params: null }, 8, /null/);
  expectInvalid({ jsonrpc: '2.0', method: 'notifications/x', params: [] }, null);
});

test('rejects a request whose id is null, boolean, object, fractional or an unsafe integer, with id null', () => {
  expectInvalid({ jsonrpc: '2.0', id: null, method: 'ping' }, null, /"id" must be a string or an integer, got null/);
  expectInvalid({ jsonrpc: '2.0', id: true, method: 'ping' }, null, /boolean/);
  expectInvalid({ jsonrpc: '2.0', id: { n: 1 }, method: 'ping' }, null, /object/);
  expectInvalid({ jsonrpc: '2.0', id: [1], method: 'ping' }, null, /array/);
  expectInvalid({ jsonrpc: '2.0', id: 1.5, method: 'ping' }, null, /fractional/);
  expectInvalid({ jsonrpc: '2.0', id: 2 ** 53 + 2, method: 'ping' }, null, /beyond 2\^53/);
});

test('rejects a message with neither a method nor a result/error, keeping the id', () => {
  expectInvalid({ jsonrpc: '2.0', id: 9 }, 9, /needs a "method"/);
  expectInvalid({ jsonrpc: '2.0' }, null, /needs a "method"/);
  expectInvalid({}, null);
});

test('rejects a result or error without a usable id', () => {
  expectInvalid({ jsonrpc: '2.0', result: {} }, null);
  expectInvalid({ jsonrpc: '2.0', id: 1.5, result: {} }, null);
});

test('classifies a message with a method and no id as a notification', () => {
  assert.deepEqual(classify({ jsonrpc: '2.0', method: 'notifications/initialized' }), {
    kind: 'notification', notification: { method: 'notifications/initialized', params: undefined },
  });
  assert.deepEqual(classify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } }), {
    kind: 'notification', notification: { method: 'notifications/cancelled', params: { requestId: 3 } },
  });
});

test('classifies requests with string and integer ids, echoing the id with its type', () => {
  assert.deepEqual(classify({ jsonrpc: '2.0', id: 'req-1', method: 'tools/list' }), {
    kind: 'request', request: { id: 'req-1', method: 'tools/list', params: undefined },
  });
  assert.deepEqual(classify({ jsonrpc: '2.0', id: 42, method: 'tools/call', params: { name: 'x' } }), {
    kind: 'request', request: { id: 42, method: 'tools/call', params: { name: 'x' } },
  });
  const zero = classify({ jsonrpc: '2.0', id: 0, method: 'ping' });
  assert.equal(zero.kind === 'request' && zero.request.id, 0);
  const str = classify({ jsonrpc: '2.0', id: '7', method: 'ping' });
  assert.equal(str.kind === 'request' && str.request.id, '7');
  const empty = classify({ jsonrpc: '2.0', id: '', method: 'ping' });
  assert.equal(empty.kind === 'request' && empty.request.id, '');
});

test('ignores unknown extra members of a request', () => {
  const c = classify({ jsonrpc: '2.0', id: 1, method: 'ping', extra: true });
  assert.deepEqual(c, { kind: 'request', request: { id: 1, method: 'ping', params: undefined } });
});

test('classifies client responses carrying a result or an error', () => {
  assert.deepEqual(classify({ jsonrpc: '2.0', id: 'srv-1', result: { roots: [] } }), {
    kind: 'response', response: { id: 'srv-1', result: { roots: [] } },
  });
  const err = classify({ jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'nope' } });
  assert.deepEqual(err, { kind: 'response', response: { id: 3, result: undefined, error: { code: -32601, message: 'nope' } } });
  const nullResult = classify({ jsonrpc: '2.0', id: 4, result: null });
  assert.equal(nullResult.kind, 'response');
});
