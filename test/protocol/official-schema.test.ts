// Every stdout line of a broad session, on each supported revision, checked against that revision's
// OFFICIAL MCP schema.json (vendored in test/fixtures/mcp-schemas) with our own validator. Never
// relaxes the schemas, except the documented "id": null of unreadable requests, which JSON-RPC
// requires and MCP types cannot hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tempDir, type ServerProcess } from './harness.js';
import {
  LEGACY_REVISIONS, ROOMODES, Session, after, failedWith, idKey, isRecord, loadOfficial, metadataOf, succeeded, validateTranscript,
  type Revision, type TestCtx,
} from './official-check.js';
import { runStatelessSession } from './official-schema-stateless.js';

/** The broad session: every method, every mode tool with its errors, notifications and bad lines. */
async function runSession(t: TestCtx, rev: Revision): Promise<{ s: ServerProcess; session: Session }> {
  const project = tempDir(t, 'rms-official-');
  const roomodes = join(project, '.roomodes');
  writeFileSync(roomodes, ROOMODES('You review changes.'));
  const config = join(tempDir(t, 'rms-official-cfg-'), 'config.json');
  writeFileSync(config, JSON.stringify({ server: { page_size: 4 } }));
  const s = startServer(t, { args: ['--project-root', project, '--config', config] });
  const session = new Session(s);
  const init = await s.initialize(rev, { roots: {} });
  assert.equal(succeeded(init, 'initialize').protocolVersion, rev);

  assert.deepEqual(succeeded(await session.call('logging/setLevel', { level: 'debug' }), 'setLevel'), {});
  assert.deepEqual(succeeded(await session.call('ping'), 'ping'), {});
  const tools = await session.all('tools/list', 'tools');
  assert.ok(tools.length > 4, 'tools/list spans several pages');

  // The mode tools, success paths.
  metadataOf(await session.tool('list_modes', {}), 'list_modes');
  metadataOf(await session.tool('get_mode_info', { mode_slug: 'reviewer', include_system_prompt: true }), 'get_mode_info');
  const parent = metadataOf(await session.tool('create_task', { mode_slug: 'code', initial_message: 'Add a feature' }), 'create_task');
  const child = metadataOf(await session.tool('create_task', { mode_slug: 'ask', initial_message: 'Explain it', parent_session_id: parent.session_id }), 'subtask');
  metadataOf(await session.tool('validate_tool_use', { session_id: child.session_id, tool_name: 'read_file' }), 'validate allowed');
  const refused = metadataOf(await session.tool('validate_tool_use', { session_id: child.session_id, tool_name: 'write_to_file', file_path: 'a.ts' }), 'validate refused');
  assert.equal(refused.allowed, false);
  failedWith(await session.tool('validate_tool_use', { session_id: child.session_id, tool_name: 'write_to_file', enforce: true }), -32005, 'enforced tool refusal');
  metadataOf(await session.tool('switch_mode', { session_id: child.session_id, new_mode_slug: 'architect', reason: 'write notes' }), 'switch_mode');
  failedWith(await session.tool('validate_tool_use', { session_id: child.session_id, tool_name: 'write_to_file', file_path: 'src/a.ts', enforce: true }), -32006, 'enforced file refusal');
  metadataOf(await session.tool('get_task_info', { session_id: parent.session_id, include_messages: true, include_hierarchy: true }), 'get_task_info');
  metadataOf(await session.tool('complete_task', { session_id: parent.session_id, status: 'completed', result: 'Done', cascade: true }), 'complete_task');

  // The mode tools, error paths.
  failedWith(await session.tool('get_mode_info', { mode_slug: 'ghost' }), -32001, 'unknown mode');
  failedWith(await session.tool('get_task_info', { session_id: 'ses_000000000000000000000000' }), -32002, 'unknown session');
  failedWith(await session.tool('create_task', { mode_slug: 7 }), -32004, 'bad arguments');
  failedWith(await session.tool('switch_mode', { session_id: parent.session_id, new_mode_slug: 'ask' }), -32004, 'switch of a finished task');
  failedWith(await session.tool('no_such_tool'), -32602, 'unknown tool');

  // Mode sets: create logs at info, which the debug level forwards as notifications/message.
  const beforeLog = s.messages.length;
  metadataOf(await session.tool('orchestrator_mode_create', { mode_name: 'development' }), 'orchestrator_mode_create');
  metadataOf(await session.tool('orchestrator_mode_list', {}), 'orchestrator_mode_list');
  metadataOf(await session.tool('orchestrator_mode_validate', { mode_file: 'development.yaml' }), 'orchestrator_mode_validate');
  await after(s, beforeLog, 'notifications/message');

  // Resources: lists, templates, the three kinds, a subscription and a file change.
  const resources = await session.all('resources/list', 'resources');
  assert.equal(resources.length, 18, 'five built-in modes and reviewer, three resources each');
  await session.all('resources/templates/list', 'resourceTemplates');
  for (const uri of ['mode://reviewer', 'mode://reviewer/config', 'mode://reviewer/system_prompt']) {
    succeeded(await session.call('resources/read', { uri }), `read ${uri}`);
  }
  succeeded(await session.call('resources/subscribe', { uri: 'mode://reviewer' }), 'subscribe');
  const beforeEdit = s.messages.length;
  // Replaced whole (as editors that save atomically do): a write in place can be read half done,
  // which reloads once more and leaves prompts/list below briefly short of the reviewer.
  writeFileSync(`${roomodes}.new`, ROOMODES('You review changes and write the findings down.'));
  renameSync(`${roomodes}.new`, roomodes);
  await after(s, beforeEdit, 'notifications/resources/list_changed');
  await after(s, beforeEdit, 'notifications/prompts/list_changed');
  await after(s, beforeEdit, 'notifications/resources/updated', (m) => isRecord(m.params) && m.params.uri === 'mode://reviewer');

  // Prompts and completion.
  assert.equal((await session.all('prompts/list', 'prompts')).length, 6);
  succeeded(await session.call('prompts/get', { name: 'reviewer', arguments: { task: 'Review the parser' } }), 'prompts/get');
  if (rev !== '2024-11-05') {
    succeeded(await session.call('completion/complete', { ref: { type: 'ref/resource', uri: 'mode://{slug}' }, argument: { name: 'slug', value: 're' } }), 'completion');
  }

  // A tool call carrying a progress token (progress, if any is sent, is validated with the rest).
  const progressId = session.nextId();
  session.methodOf.set(idKey(progressId), 'tools/call');
  succeeded(await s.call(progressId, 'tools/call', { name: 'list_modes', arguments: {}, _meta: { progressToken: `p-${rev}` } }), 'progress call');

  // Bad lines, each followed by a ping barrier so all answers are in before the next.
  const badLines = [
    '{"jsonrpc":"2.0","method":"ping","id":[oops',
    '[]',
    '{"jsonrpc":"2.0","id":"no-method","params":{}}',
    '{"jsonrpc":"2.0","id":77,"method":"no/such/method"}',
    // A batch: one array answer on 2025-03-26, a single -32600 on the others.
    '[{"jsonrpc":"2.0","id":"batch-ping","method":"ping"},{"jsonrpc":"2.0","method":"notifications/whatever"},{"jsonrpc":"2.0","id":"batch-bad","method":"no/such"}]',
  ];
  session.methodOf.set(idKey('batch-ping'), 'ping');
  for (const line of badLines) {
    s.write(`${line}\n`);
    assert.deepEqual(succeeded(await session.call('ping'), 'barrier ping'), {});
  }
  failedWith(await s.response(77), -32601, 'unknown method');

  assert.deepEqual(await s.end(), { code: 0, signal: null });
  return { s, session };
}

/** A second, short session with tool_errors "result": tool failures become isError results. */
async function runResultErrorSession(t: TestCtx, rev: Revision): Promise<{ s: ServerProcess; session: Session }> {
  const config = join(tempDir(t, 'rms-official-cfg-'), 'config.json');
  writeFileSync(config, JSON.stringify({ server: { tool_errors: 'result' } }));
  const s = startServer(t, { args: ['--project-root', tempDir(t, 'rms-official-'), '--config', config] });
  const session = new Session(s);
  await s.initialize(rev);
  const failures: [string, Record<string, unknown>][] = [
    ['get_mode_info', { mode_slug: 'ghost' }],
    ['get_task_info', { session_id: 'ses_000000000000000000000000' }],
    ['create_task', { mode_slug: 7 }],
  ];
  for (const [name, args] of failures) {
    const res = await session.tool(name, args);
    assert.ok(isRecord(res.result) && res.result.isError === true, `${name} answers an isError result: ${JSON.stringify(res)}`);
  }
  metadataOf(await session.tool('create_task', { mode_slug: 'debug' }), 'create_task');
  assert.deepEqual(await s.end(), { code: 0, signal: null });
  return { s, session };
}

type Run = { s: ServerProcess; session: Session };

/** Validates both sessions' lines, checks that each `needed` definition was exercised, and reports. */
function checkRuns(t: TestCtx & { diagnostic(m: string): void }, rev: Revision, runs: Run[], needed: string[], minNullIds: number): void {
  const official = loadOfficial(rev);
  const verdicts = runs.map((r) => validateTranscript(official, r.s.lines, r.session.methodOf));
  const seen = new Set(verdicts.flatMap((v) => [...v.byDefinition.keys()]));
  for (const name of [official.resultEnvelope, official.errorEnvelope, ...needed]) {
    assert.ok(seen.has(name), `the session produced something checked as ${name}`);
  }
  const nullIds = verdicts[0]!.nullIdErrors;
  t.diagnostic(`${rev}: ${runs.reduce((n, r) => n + r.s.lines.length, 0)} lines, `
    + `${verdicts.reduce((n, v) => n + v.validated, 0)} messages, ${nullIds} error(s) with id null checked with a stand-in id`);
  assert.ok(nullIds >= minNullIds, 'the unreadable lines were answered with id null');
  const failures = verdicts.flatMap((v) => v.failures);
  assert.deepEqual(failures, [], `${rev}: messages that break the official schema:\n${JSON.stringify(failures, null, 2)}`);
}

const LISTS = ['ListToolsResult', 'CallToolResult', 'ListResourcesResult', 'ListResourceTemplatesResult', 'ReadResourceResult',
  'ListPromptsResult', 'GetPromptResult', 'LoggingMessageNotification', 'ResourceListChangedNotification',
  'PromptListChangedNotification', 'ResourceUpdatedNotification'];

for (const rev of LEGACY_REVISIONS) {
  test(`every message of a broad ${rev} session validates against the official ${rev} schema`, async (t) => {
    const runs = await Promise.all([runSession(t, rev), runResultErrorSession(t, rev)]);
    checkRuns(t, rev, runs, ['InitializeResult', 'EmptyResult', ...LISTS, ...(rev === '2024-11-05' ? [] : ['CompleteResult']),
      ...(rev === '2025-03-26' ? ['JSONRPCBatchResponse'] : [])], 2);
  });
}

test('every message of a broad 2026-07-28 session validates against the official 2026-07-28 schema', async (t) => {
  const runs = await Promise.all([runStatelessSession(t, 'jsonrpc'), runStatelessSession(t, 'result')]);
  checkRuns(t, '2026-07-28', runs, ['DiscoverResult', ...LISTS, 'CompleteResult', 'SubscriptionsListenResult',
    'SubscriptionsAcknowledgedNotification', 'UnsupportedProtocolVersionError', 'MissingRequiredClientCapabilityError',
    'InvalidParamsError', 'MethodNotFoundError', 'InvalidRequestError', 'ParseError'], 1);
});

test('the transcript check flags each kind of schema break, on every revision', () => {
  const lines = [
    'not json',
    '{"jsonrpc":"2.0","id":1,"result":[]}',
    '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text"}]}}',
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":"x"}}',
    '{"jsonrpc":"2.0","id":3,"error":{"code":"bad","message":"x"}}',
    '{"jsonrpc":"2.0","id":99,"result":{}}',
    '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{}}',
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
    '{"jsonrpc":"2.0","id":4,"result":{}}',
  ];
  const methodOf = new Map([[idKey(1), 'ping'], [idKey(2), 'tools/call'], [idKey(4), 'resources/subscribe']]);
  for (const rev of LEGACY_REVISIONS) {
    const verdict = validateTranscript(loadOfficial(rev), lines, methodOf);
    const flagged = new Set(verdict.failures.map((f) => f.line));
    assert.deepEqual(lines.filter((l) => !flagged.has(l)), [lines[7], lines[8]], `${rev}: only the last two lines are valid`);
    assert.equal(verdict.nullIdErrors, 1);
  }
  // 2026-07-28 also wants resultType on every result, the -32022 data, and no server→client request.
  const modern = [
    ...lines,
    '{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete"}}',
    '{"jsonrpc":"2.0","id":6,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"]}}}',
    '{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}',
  ];
  const verdict = validateTranscript(loadOfficial('2026-07-28'), modern, new Map([...methodOf, [idKey(5), 'tools/list']]));
  const flagged = new Set(verdict.failures.map((f) => f.line));
  assert.deepEqual(modern.filter((l) => !flagged.has(l)), [lines[7]], '2026-07-28: only the parse error is valid');
});
