// The official MCP TypeScript SDK v1 client (legacy era, StreamableHTTPClientTransport) walks the
// seed workflow through a round-robin proxy in front of three built servers sharing one Redis: a
// client we did not write, with every request on another replica. Run by .ci/run after `npm test`:
//   node --import tsx test/replicas-sdk.mjs <folder where @modelcontextprotocol/sdk is installed>
// The SDK is never a dependency of the package; the folder is a cache that .ci/run fills.
// Exit 0 when every step answered as expected (or no Redis: one skip line), 1 otherwise.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { redisMissing, testRedis } from './redis-server.ts';
import { startProxy, startReplicas } from './replicas.ts';
import { tempDir } from './protocol/harness.ts';

const SDK_VERSION = '1.32.2';
const sdkDir = process.argv[2] ?? process.env.ROO_MODES_SDK_DIR;
if (!sdkDir) {
  console.error('replicas-sdk: name the folder holding @modelcontextprotocol/sdk (argument or ROO_MODES_SDK_DIR)');
  process.exit(2);
}
if (redisMissing) {
  console.log(`replicas-sdk: skipped: ${redisMissing}`);
  process.exit(0);
}

// Loaded from the cache folder by its package name, so the SDK's own exports map picks the files.
const fromCache = createRequire(join(sdkDir, 'package.json'));
// Its exports map sends package.json to a dist/ stub: the version is read from the installed folder.
const sdkPackage = JSON.parse(readFileSync(join(sdkDir, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'), 'utf8'));
if (sdkPackage.version !== SDK_VERSION) {
  console.error(`replicas-sdk: ${sdkDir} has @modelcontextprotocol/sdk ${sdkPackage.version}, expected ${SDK_VERSION}`);
  process.exit(2);
}
const load = async (subpath) => import(pathToFileURL(fromCache.resolve(`@modelcontextprotocol/sdk/${subpath}`)).href);
const { Client } = await load('client/index.js');
const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');

// Teardown collected here and run at the end, as t.after would in a test.
const cleanups = [];
const scope = { after: (fn) => { cleanups.push(fn); } };
let failed = false;
let replicas = [];
try {
  const redis = await testRedis(scope);
  const project = tempDir(scope, 'rms-replicas-sdk-');
  replicas = await startReplicas(scope, 3, { args: ['--store', redis.url, '--project-root', project] });
  const proxy = await startProxy(scope, replicas);
  const client = new Client({ name: 'replicas-sdk', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(proxy.url));
  scope.after(() => client.close());
  await client.connect(transport);
  console.log(`replicas-sdk: SDK ${SDK_VERSION} connected through ${proxy.url}, protocol ${transport.protocolVersion ?? '?'}, session ${transport.sessionId}`);

  const step = async (name, args, check) => {
    const result = await client.callTool({ name, arguments: args });
    assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result.content)}`);
    const meta = result.structuredContent ?? result.metadata;
    check(meta);
    console.log(`replicas-sdk: ${name} ok (replica ${proxy.served.findLast((s) => s.method === 'POST')?.replica})`);
    return meta;
  };
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'create_task'), 'tools/list has create_task');
  await step('list_modes', {}, (m) => assert.ok(m.modes.some((x) => x.slug === 'architect')));
  await step('get_mode_info', { mode_slug: 'architect' }, (m) => assert.equal(m.tool_groups.edit.enabled, true));
  const parent = (await step('create_task', { mode_slug: 'architect', initial_message: 'Design it' }, (m) => assert.match(m.session_id, /^ses_/))).session_id;
  await step('validate_tool_use', { session_id: parent, tool_name: 'write_to_file', file_path: 'design.md' }, (m) => assert.equal(m.allowed, true));
  await step('validate_tool_use', { session_id: parent, tool_name: 'write_to_file', file_path: 'src/app.py' }, (m) => assert.equal(m.allowed, false));
  await step('switch_mode', { session_id: parent, new_mode_slug: 'code', reason: 'design done' }, (m) => assert.equal(m.new_mode, 'code'));
  await step('validate_tool_use', { session_id: parent, tool_name: 'write_to_file', file_path: 'src/app.py' }, (m) => assert.equal(m.allowed, true));
  const child = (await step('create_task', { mode_slug: 'debug', initial_message: 'Find the bug', parent_session_id: parent }, (m) => assert.match(m.session_id, /^ses_/))).session_id;
  await step('get_task_info', { session_id: parent, include_hierarchy: true }, (m) => assert.deepEqual(m.hierarchy.children.map((c) => c.session_id), [child]));
  await step('complete_task', { session_id: child, status: 'completed', result: 'fixed' }, (m) => assert.equal(m.status, 'completed'));
  await step('complete_task', { session_id: parent, status: 'completed', result: 'done' }, (m) => assert.deepEqual(m.active_children, []));
  await transport.terminateSession();

  const posts = proxy.served.filter((s) => s.method === 'POST');
  const used = new Set(posts.map((s) => s.replica));
  assert.deepEqual(used, new Set([0, 1, 2]), `every replica served some of the SDK's requests: ${posts.map((s) => s.replica).join(',')}`);
  console.log(`replicas-sdk: the seed workflow passed with ${posts.length} POSTs spread over replicas ${[...used].sort().join(', ')}`);
} catch (err) {
  failed = true;
  console.error('replicas-sdk: FAILED:', err);
  for (const r of replicas) console.error(r.stderr.slice(-3000));
} finally {
  for (const fn of cleanups.splice(0).reverse()) {
    try { await fn(); } catch (err) { console.error('replicas-sdk: cleanup:', err); }
  }
}
process.exitCode = failed ? 1 : 0;
