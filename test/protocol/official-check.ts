// The official-schema check shared by the schema tests: loading a revision's OFFICIAL schema.json
// (the one place that knows where it lives), and validating every line of a transcript against it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startServer, type Msg, type ServerProcess } from './harness.js';
import { compileSchemaDocument, type JsonSchema, type SchemaDocument, type SchemaIssue } from '../../src/schema/validate.js';

export type TestCtx = Parameters<typeof startServer>[0];

export const LEGACY_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type Revision = typeof LEGACY_REVISIONS[number] | '2026-07-28';

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
  'server/discover': 'DiscoverResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
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
  'notifications/subscriptions/acknowledged': 'SubscriptionsAcknowledgedNotification',
};

/** Errors whose whole message has a definition of its own (2026-07-28 defines these). */
const ERROR_MESSAGE_DEFS: Readonly<Record<number, string>> = {
  [-32021]: 'MissingRequiredClientCapabilityError',
  [-32022]: 'UnsupportedProtocolVersionError',
};

/** Errors whose error object has a definition of its own, where the revision defines it. */
const ERROR_OBJECT_DEFS: Readonly<Record<number, string>> = {
  [-32700]: 'ParseError',
  [-32600]: 'InvalidRequestError',
  [-32601]: 'MethodNotFoundError',
  [-32602]: 'InvalidParamsError',
  [-32603]: 'InternalError',
};

/** One revision's official schema, compiled once, with the envelope names that differ by revision. */
export interface Official {
  rev: Revision;
  check(definition: string, value: unknown): SchemaIssue[];
  has(definition: string): boolean;
  /** The success-response envelope: JSONRPCResultResponse from 2025-11-25, JSONRPCResponse before. */
  resultEnvelope: string;
  /** The error-response envelope: JSONRPCErrorResponse from 2025-11-25, JSONRPCError before. */
  errorEnvelope: string;
}

/** Where each revision's official schema is read from: the one place to repoint. */
export const officialSchemaUrl = (rev: Revision): URL => new URL(`../fixtures/mcp-schemas/${rev}/schema.json`, import.meta.url);

export function loadOfficial(rev: Revision): Official {
  const url = officialSchemaUrl(rev);
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

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const idKey = (id: unknown): string => JSON.stringify(id);

/** A message that failed validation: the evidence a bug report needs. */
interface Failure { line: string; definition: string; issues: string[] }

export interface Verdict { failures: Failure[]; validated: number; nullIdErrors: number; byDefinition: Map<string, number> }

/**
 * Validates every stdout line: the envelope (JSONRPCMessage, then the result/error envelope), the
 * result by the definition for its request's method, and each notification by its definition.
 */
export function validateTranscript(official: Official, lines: readonly string[], methodOf: ReadonlyMap<string, string>): Verdict {
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
        const code = isRecord(m.error) ? m.error.code : undefined;
        const whole = typeof code === 'number' ? ERROR_MESSAGE_DEFS[code] : undefined;
        const object = typeof code === 'number' ? ERROR_OBJECT_DEFS[code] : undefined;
        if (whole !== undefined && official.has(whole)) expect(line, whole, m);
        if (object !== undefined && official.has(object)) expect(line, object, m.error);
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
        const definition = NOTIFICATION_DEFS[m.method] ?? ('id' in m ? 'ServerRequest' : 'ServerNotification');
        if (official.has(definition)) expect(line, definition, m);
        else verdict.failures.push({ line: line.slice(0, 400), definition, issues: [`${official.rev} defines no ${definition}`] });
      }
    }
  }
  return verdict;
}

export const ROOMODES = (role: string): string => `customModes:
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
export class Session {
  readonly methodOf = new Map<string, string>([[idKey('init'), 'initialize']]);
  #n = 0;
  /** `meta`, when given, is the per-request _meta of a 2026-07-28 session, added to every request. */
  constructor(readonly s: ServerProcess, readonly meta?: Record<string, unknown>) {}

  /** Alternates integer and string ids, so both kinds are echoed and checked. */
  nextId(): number | string { this.#n++; return this.#n % 2 === 0 ? this.#n : `r${this.#n}`; }

  async call(method: string, params?: unknown): Promise<Msg> {
    const id = this.nextId();
    this.methodOf.set(idKey(id), method);
    return this.s.call(id, method, this.withMeta(params));
  }

  /** The params of a request of this session's era (2026-07-28: with its _meta, extra keys kept). */
  withMeta(params?: unknown, extra: Record<string, unknown> = {}): unknown {
    if (this.meta === undefined) return params;
    const p = isRecord(params) ? params : {};
    return { ...p, _meta: { ...this.meta, ...(isRecord(p._meta) ? p._meta : {}), ...extra } };
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

export function succeeded(res: Msg, what: string): Record<string, unknown> {
  assert.ok(isRecord(res.result), `${what}: expected a result, got ${JSON.stringify(res.error)}`);
  assert.notEqual(res.result.isError, true, `${what}: expected success, got ${JSON.stringify(res.result).slice(0, 300)}`);
  return res.result;
}

export function failedWith(res: Msg, code: number, what: string): void {
  assert.ok(isRecord(res.error), `${what}: expected error ${code}, got ${JSON.stringify(res.result)?.slice(0, 300)}`);
  assert.equal(res.error.code, code, `${what}: ${JSON.stringify(res.error)}`);
}

export const metadataOf = (res: Msg, what: string): Record<string, unknown> => {
  const meta = succeeded(res, what).metadata;
  assert.ok(isRecord(meta), `${what}: metadata`);
  return meta;
};

/** Waits for a message with `method` written after index `from`. */
export const after = (s: ServerProcess, from: number, method: string, pred: (m: Msg) => boolean = () => true): Promise<Msg> =>
  s.waitFor((m) => m.method === method && s.messages.indexOf(m) >= from && pred(m), 8000, `${method} after message ${from}`);
