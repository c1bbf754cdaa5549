import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { connectStdio, type ConnectOptions } from '../../src/client/client.js';
import { McpError, ServerExitedError, SpawnError, UnsupportedProtocolVersionError } from '../../src/client/errors.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/fake-mcp-server.mjs', import.meta.url));
const fake = (flags: string[] = [], extra: Partial<ConnectOptions> = {}): Promise<Awaited<ReturnType<typeof connectStdio>>> =>
  connectStdio({ command: process.execPath, args: [FIXTURE, ...flags], connectTimeoutMs: 10_000, ...extra });

test('completes the handshake and sends notifications/initialized', async (t) => {
  const client = await fake();
  t.after(() => client.close());
  assert.equal(client.protocolVersion, '2025-11-25');
  assert.equal(client.serverInfo.name, 'fake-mcp-server');
  assert.equal(client.instructions, 'a fake server for tests');
  assert.deepEqual(client.serverCapabilities.tools, {});
  const result = await client.callTool('received');
  const received = (result.metadata as { received: Array<{ method?: string; params?: { protocolVersion?: string } }> }).received;
  assert.equal(received[0]?.method, 'initialize');
  assert.equal(received[0]?.params?.protocolVersion, '2025-11-25');
  assert.equal(received[1]?.method, 'notifications/initialized');
});

test('offers the requested revision and accepts an older one the server picks', async (t) => {
  const offered = await fake([], { protocolVersion: '2025-06-18' });
  t.after(() => offered.close());
  assert.equal(offered.protocolVersion, '2025-06-18');
  const downgraded = await fake(['--protocol-version=2024-11-05']);
  t.after(() => downgraded.close());
  assert.equal(downgraded.protocolVersion, '2024-11-05');
});

test('refuses a revision it does not speak and stops the server', async () => {
  await assert.rejects(fake(['--protocol-version=1999-01-01']), (err: unknown) => {
    assert.ok(err instanceof UnsupportedProtocolVersionError);
    assert.equal(err.answered, '1999-01-01');
    assert.match(err.message, /1999-01-01.*2025-11-25/);
    return true;
  });
});

test('reports a command that cannot be started as SpawnError with its errno', async () => {
  await assert.rejects(connectStdio({ command: '/nonexistent/definitely-not-here' }), (err: unknown) => {
    assert.ok(err instanceof SpawnError);
    assert.equal(err.errno, 'ENOENT');
    assert.match(err.message, /definitely-not-here/);
    return true;
  });
});

test('reports a server that exits before answering initialize, with its code and stderr tail', async () => {
  await assert.rejects(fake(['--exit-early=3']), (err: unknown) => {
    assert.ok(err instanceof ServerExitedError);
    assert.equal(err.exitCode, 3);
    assert.match(err.stderrTail, /refusing to start/);
    assert.match(err.message, /exited with code 3/);
    return true;
  });
});

test('rejects a waiting request when the server exits mid-call', async (t) => {
  const client = await fake(['--exit-on=tools/call']);
  t.after(() => client.close());
  await assert.rejects(client.callTool('echo', {}), (err: unknown) => {
    assert.ok(err instanceof ServerExitedError);
    assert.equal(err.exitCode, 4);
    assert.match(err.stderrTail, /exiting on tools\/call/);
    return true;
  });
  // Later requests fail at once instead of hanging.
  await assert.rejects(client.ping(), ServerExitedError);
});

test('turns an error answer to initialize into McpError and stops the server', async () => {
  await assert.rejects(fake(['--error-on=initialize']), (err: unknown) => {
    assert.ok(err instanceof McpError);
    assert.equal(err.code, -32050);
    assert.equal(err.method, 'initialize');
    return true;
  });
});

test('reads CRLF-terminated answers and answers written in pieces', async (t) => {
  const client = await fake(['--crlf', '--split-writes']);
  t.after(() => client.close());
  const tools = await client.listTools();
  assert.ok(tools.some((tool) => tool.name === 'echo'));
});

test('the package entry exports the client API and the qualified-name helpers', async () => {
  const api = await import('../../src/client/index.js');
  for (const name of ['connectStdio', 'McpClient', 'McpError', 'McpTimeoutError', 'ServerExitedError', 'SpawnError', 'parseQualifiedName', 'formatQualifiedName', 'matchesToolPattern', 'compileToolPatterns']) {
    assert.equal(typeof (api as Record<string, unknown>)[name], 'function', name);
  }
});
