// Unit tests of the bounds table's run-time part: the config's HTTP keys, the descriptor limit
// lowering the connection cap, and the floors that keep the HTTP door usable with small values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BOUNDS, httpBounds, type HttpConfigBounds } from '../../src/bounds.js';
import { defaultConfig } from '../../src/config.js';
import { descriptorLimit } from '../../src/http/sockets.js';
import { MAX_JSON_DEPTH } from '../../src/rpc/json-bounds.js';

const HTTP: HttpConfigBounds = defaultConfig().http;

test('the documented defaults: 10 s for headers, 30 s for a request, 5 s idle, 2 s grace, 32 MiB unread, 16 stateless answers made at once', () => {
  const b = httpBounds(10 * 1024 * 1024, HTTP, null);
  assert.deepEqual(b, {
    maxBodyBytes: 10 * 1024 * 1024, maxConnections: 1024, idleTimeoutMs: 5000, headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000, serverUnreadBytes: 32 * 1024 * 1024, drainGraceMs: 2000, statelessRunning: 16,
  });
  assert.equal(MAX_JSON_DEPTH, BOUNDS.jsonDepth, 'stdio and HTTP read one depth bound');
});

test('the connection cap stays below the open-file limit', () => {
  assert.equal(httpBounds(1 << 20, HTTP, 256).maxConnections, 256 - BOUNDS.http.descriptorReserve);
  assert.equal(httpBounds(1 << 20, HTTP, 100).maxConnections, 16, 'never below 16');
  assert.equal(httpBounds(1 << 20, HTTP, 1_000_000).maxConnections, HTTP.max_connections);
  const limit = descriptorLimit();
  if (process.platform === 'linux') assert.ok(limit !== null && limit > 0, `read ${limit}`);
});

test('floors: the unread bound holds two of the largest answers; the request timeout is at least the header one', () => {
  const b = httpBounds(8 << 20, { ...HTTP, max_unread_bytes: 1 << 20, headers_timeout_ms: 5000, request_timeout_ms: 1000 }, null);
  assert.equal(b.serverUnreadBytes, 16 << 20);
  assert.equal(b.requestTimeoutMs, 5000);
});
