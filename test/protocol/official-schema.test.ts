// Every stdout line of a broad session, on each supported revision, checked against that revision's
// OFFICIAL MCP schema.json (vendored in test/fixtures/mcp-schemas) with our own validator. Never
// relaxes the schemas, except the documented "id": null of unreadable requests, which JSON-RPC
// requires and MCP types cannot hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tempDir, type Msg, type ServerProcess } from './harness.js';
import { compileSchemaDocument, type JsonSchema, type SchemaDocument, type SchemaIssue } from '../../src/schema/validate.js';

type TestCtx = Parameters<typeof startServer>[0];

const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
type Revision = typeof REVISIONS[number];

/** The result definition for each request method the session sends. */
const RESULT_DEFS: Readonly<Record<string, string>> = {
  initialize: 'InitializeResult',
  ping: 'EmptyResult',
  'logging/setLevel': 'EmptyResult',
  'resources/subscribe': 'EmptyResult',
  'resources/unsubscribe': 'EmptyResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'completion/complete': 'CompleteResult',
};

/** The definition of each server notification (the same names in all four revisions). */
const NOTIFICATION_DEFS: Readonly<Record<string, string>> = {
  'notifications/message': 'LoggingMessageNotification',
  'notifications/progress': 'ProgressNotification',
  'notifications/cancelled': 'CancelledNotification',
  'notifications/resources/list_changed': 'ResourceListChangedNotification',
  'notifications/resources/updated': 'ResourceUpdatedNotification',
  'notifications/prompts/list_changed': 'PromptListChangedNotification',
  'notifications/tools/list_changed': 'ToolListChangedNotification',
};

/** One revision's official schema, compiled once, with the envelope names that differ by revision. */
interface Official {
  rev: Revision;
  check(definition: string, value: unknown): SchemaIssue[];
  has(definition: string): boolean;
  /** The success-response envelope: JSONRPCResultResponse from 2025-11-25, JSONRPCResponse before. */
  resultEnvelope: string;
  /** The error-response envelope: JSONRPCErrorResponse from 2025-11-25, JSONRPCError before. */
  errorEnvelope: string;
}

function loadOfficial(rev: Revision): Official {
  const url = new URL(`../fixtures/mcp-schemas/${rev}/schema.json`, import.meta.url);
  const root = JSON.parse(readFileSync(url, 'utf8')) as Record<string, unknown>;
  const key = 'definitions' in root ? 'definitions' : '$defs';
  const defs = root[key] as Record<string, unknown>;
  const doc: SchemaDocument = compileSchemaDocument(root as JsonSchema);
  const has = (name: string): boolean => Object.prototype.hasOwnProperty.call(defs, name);
  const pick = (...names: string[]): string => {
    const found = names.find(has);
    assert.ok(found, `${rev} schema defines none of ${names.join(', ')}`);
    return found;
  };
  return {
    rev,
    has,
    check: (name, value) => doc.validator(`#/${key}/${name}`)(value),
    resultEnvelope: pick('JSONRPCResultResponse', 'JSONRPCResponse'),
    errorEnvelope: pick('JSONRPCErrorResponse', 'JSONRPCError'),
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const idKey = (id: unknown): string => JSON.stringify(id);

/** A message that failed validation: the evidence a bug report needs. */
interface Failure { line: string; definition: string; issues: string[] }

interface Verdict { failures: Failure[]; validated: number; nullIdErrors: number; byDefinition: Map<string, number> }

/**
 * Validates every stdout line: the envelope (JSONRPCMessage, then the result/error envelope), the
 * result by the definition for its request's method, and each notification by its definition.
 */
function validateTranscript(official: Official, lines: readonly string[], methodOf: ReadonlyMap<string, string>): Verdict {
  const verdict: Verdict = { failures: [], validated: 0, nullIdErrors: 0, byDefinition: new Map() };
  const expect = (line: string, definition: string, value: unknown): void => {
    verdict.byDefinition.set(definition, (verdict.byDefinition.get(definition) ?? 0) + 1);
    const issues = official.check(definition, value);
    if (issues.length > 0) verdict.failures.push({ line: line.slice(0, 400), definition, issues: issues.map((i) => i.message) });
  };
  // JSON-RPC answers an unreadable id with null; MCP's RequestId is string | integer, so such an
  // error is checked with a stand-in id, and counted (the same rule as shared/interop/wire.mjs).
  const standIn = (m: unknown): unknown => {
    if (isRecord(m) && 'error' in m && m.id === null) { verdict.nullIdErrors++; return { ...m, id: 0 }; }
    return m;
  };
  for (const line of lines) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      verdict.failures.push({ line: line.slice(0, 400), definition: '(JSON)', issues: ['not JSON'] });
      continue;
    }
    const items = Array.isArray(parsed) ? parsed.map(standIn) : [standIn(parsed)];
    if (Array.isArray(parsed)) {
      // Batches exist only in 2025-03-26, where JSONRPCMessage admits a batch response.
      expect(line, official.has('JSONRPCBatchResponse') ? 'JSONRPCBatchResponse' : 'JSONRPCMessage', items);
      expect(line, 'JSONRPCMessage', items);
    }
    for (const m of items) {
      verdict.validated++;
      if (!Array.isArray(parsed)) expect(line, 'JSONRPCMessage', m);
      if (!isRecord(m)) continue;
      if ('error' in m) {
        expect(line, official.errorEnvelope, m);
      } else if ('result' in m) {
        expect(line, official.resultEnvelope, m);
        const method = methodOf.get(idKey(m.id));
        const definition = method === undefined ? undefined : RESULT_DEFS[method];
        if (definition === undefined) {
          verdict.failures.push({ line: line.slice(0, 400), definition: '(request)', issues: [`a result for id ${idKey(m.id)}, which no known request carried`] });
        } else {
          expect(line, definition, m.result);
        }
      } else if (typeof m.method === 'string') {
        const definition = NOTIFICATION_DEFS[m.method];
        expect(line, definition ?? ('id' in m ? 'ServerRequest' : 'ServerNotification'), m);
      }
    }
  }
  return verdict;
}

const ROOMODES = (role: string): string => `customModes:
  - slug: reviewer
    name: 🔍 Reviewer
    roleDefinition: ${role}
    whenToUse: Use to review a change.
    groups:
      - read
      - - edit
        - fileRegex: \\.md$
          description: Review notes only
`;

/** Numbered requests that remember each id's method, so results can be matched to their definitions. */
class Session {
  readonly methodOf = new Map<string, string>([[idKey('init'), 'initialize']]);
  #n = 0;
  constructor(readonly s: ServerProcess) {}

  /** Alternates integer and string ids, so both kinds are echoed and checked. */
  nextId(): number | string { this.#n++; return this.#n % 2 === 0 ? this.#n : `r${this.#n}`; }

  async call(method: string, params?: unknown): Promise<Msg> {
    const id = this.nextId();
    this.methodOf.set(idKey(id), method);
    return this.s.call(id, method, params);
  }

  async tool(name: string, args: Record<string, unknown> = {}): Promise<Msg> {
    return this.call('tools/call', { name, arguments: args });
  }

  /** Every page of a list method, following nextCursor. */
  async all(method: string, key: string): Promise<unknown[]> {
    const out: unknown[] = [];
    let cursor: unknown;
    for (let page = 0; page < 50; page++) {
      const res = await this.call(method, cursor === undefined ? {} : { cursor });
      const result = succeeded(res, method);
      out.push(...(Array.isArray(result[key]) ? result[key] : []));
      cursor = result.nextCursor;
      if (cursor === undefined) return out;
    }
    assert.fail(`${method} never ended its pages`);
  }
}

function succeeded(res: Msg, what: string): Record<string, unknown> {
  assert.ok(isRecord(res.result), `${what}: expected a result, got ${JSON.stringify(res.error)}`);
  assert.notEqual(res.result.isError, true, `${what}: expected success, got ${JSON.stringify(res.result).slice(0, 300)}`);
  return res.result;
}

function failedWith(res: Msg, code: number, what: string): void {
  assert.ok(isRecord(res.error), `${what}: expected error ${code}, got ${JSON.stringify(res.result)?.slice(0, 300)}`);
  assert.equal(res.error.code, code, `${what}: ${JSON.stringify(res.error)}`);
}

const metadataOf = (res: Msg, what: string): Record<string, unknown> => {
  const meta = succeeded(res, what).metadata;
  assert.ok(isRecord(meta), `${what}: metadata`);
  return meta;
};

/** Waits for a message with `method` written after index `from`. */
const after = (s: ServerProcess, from: number, method: string, pred: (m: Msg) => boolean = () => true): Promise<Msg> =>
  s.waitFor((m) => m.method === method && s.messages.indexOf(m) >= from && pred(m), 8000, `${method} after message ${from}`);

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
  writeFileSync(roomodes, ROOMODES('You review changes and write the findings down.'));
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

for (const rev of REVISIONS) {
  test(`every message of a broad ${rev} session validates against the official ${rev} schema`, async (t) => {
    const official = loadOfficial(rev);
    const [broad, errorsAsResults] = await Promise.all([runSession(t, rev), runResultErrorSession(t, rev)]);
    const verdict = validateTranscript(official, broad.s.lines, broad.session.methodOf);
    const second = validateTranscript(official, errorsAsResults.s.lines, errorsAsResults.session.methodOf);
    const seen = [...verdict.byDefinition.keys()];
    for (const needed of [official.resultEnvelope, official.errorEnvelope, 'InitializeResult', 'EmptyResult', 'ListToolsResult',
      'CallToolResult', 'ListResourcesResult', 'ListResourceTemplatesResult', 'ReadResourceResult', 'ListPromptsResult',
      'GetPromptResult', 'LoggingMessageNotification', 'ResourceListChangedNotification', 'PromptListChangedNotification',
      'ResourceUpdatedNotification', ...(rev === '2024-11-05' ? [] : ['CompleteResult']),
      ...(rev === '2025-03-26' ? ['JSONRPCBatchResponse'] : [])]) {
      assert.ok(seen.includes(needed), `the session produced something checked as ${needed}`);
    }
    t.diagnostic(`${rev}: ${broad.s.lines.length + errorsAsResults.s.lines.length} lines, `
      + `${verdict.validated + second.validated} messages, ${verdict.nullIdErrors} error(s) with id null checked with a stand-in id`);
    assert.ok(verdict.nullIdErrors >= 2, 'the unreadable lines were answered with id null');
    const failures = [...verdict.failures, ...second.failures];
    assert.deepEqual(failures, [], `${rev}: messages that break the official schema:\n${JSON.stringify(failures, null, 2)}`);
  });
}

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
  for (const rev of REVISIONS) {
    const verdict = validateTranscript(loadOfficial(rev), lines, methodOf);
    const flagged = new Set(verdict.failures.map((f) => f.line));
    assert.deepEqual(lines.filter((l) => !flagged.has(l)), [lines[7], lines[8]], `${rev}: only the last two lines are valid`);
    assert.equal(verdict.nullIdErrors, 1);
  }
});
