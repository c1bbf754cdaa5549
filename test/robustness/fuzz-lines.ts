// The fuzz line generator: valid, mutated and random input lines as raw bytes, drawn from a
// seeded Prng. It never decides what a line deserves (fuzz-expect.ts does) and never imports server code.
import type { Prng } from './prng.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Byte sequences that are not UTF-8 (none contains a newline byte). */
const BAD_UTF8: readonly number[][] = [
  [0xff], [0xfe], [0x80], [0xc3], [0xe2, 0x82], [0xc0, 0xaf], [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80],
];

/** Strings that break naive text handling: surrogates, emoji, joiners, invisible and control text. */
const ODD_TEXT: readonly string[] = [
  '😀', '👩‍👩‍👧‍👦', '🏳️‍🌈', '\ud800', '\udfff', '\udc00\ud800', 'a\ud83dz', '\u0000', '\u0007\u001b[31m',
  '\u2028\u2029', '\ufeff', '\uffff\ufffe', 'e\u0301\u0301', '\u202eevil', '漢字かな', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', '', ' ', '\\', '"', '\t\r',
];

/** Numbers at and past the edges of what JSON and JavaScript agree on, as raw JSON text. */
const ODD_NUMBERS: readonly string[] = [
  '1e400', '-1e400', '1e-400', '123456789012345678901234567890', '9007199254740993', '-9007199254740993',
  '0.1', '-0', '1.0', '1e2', '4.9e-324', '1.7976931348623157e308', '0', '-1', '2147483648', '18446744073709551616',
];

const MODES = ['code', 'architect', 'ask', 'debug', 'orchestrator', 'no-such-mode', 'CODE', ''];
const ROO_TOOLS = ['read_file', 'write_to_file', 'apply_diff', 'execute_command', 'browser_action', 'use_mcp_tool',
  'mcp__github__create_issue', 'switch_mode', 'new_task', 'no_such_tool', 'mcp_bad', 'attempt_completion'];
const PATHS = ['src/a.ts', 'README.md', '../../etc/passwd', '/etc/passwd', 'C:/Windows/x', 'a\u0000b', 'docs/x.md', './a/../../b'];
const URIS = ['mode://code', 'mode://architect/config', 'mode://ask/system_prompt', 'mode://nope', 'mode://', 'file:///etc/passwd', 'mode://code/../../x', 'mode://{slug}'];
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency', 'DEBUG', 'verbose', ''];
const VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '1999-01-01', ''];
const UNKNOWN_METHODS = ['no/such', 'tools/List', '', 'rpc.discover', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype', 'sampling/createMessage'];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];

/** The request methods the server serves; the generator makes a valid request for each. */
export const METHODS = [
  'initialize', 'ping', 'logging/setLevel', 'tools/list', 'tools/call', 'resources/list', 'resources/templates/list',
  'resources/read', 'resources/subscribe', 'resources/unsubscribe', 'prompts/list', 'prompts/get', 'completion/complete',
] as const;

/** Tools called with valid arguments (those not served answer -32602, which is also fine). */
export const TOOLS = [
  'list_modes', 'get_mode_info', 'create_task', 'switch_mode', 'get_task_info', 'validate_tool_use', 'complete_task',
  'orchestrator_mode_list', 'orchestrator_mode_validate', 'orchestrator_mode_backup', 'orchestrator_mode_select',
  'orchestrator_mode_create', 'orchestrator_mode_restore', 'roo_ipc_status',
  'export_mode', 'import_mode', 'create_mode', 'update_mode', 'delete_mode',
] as const;

const NOTIFICATIONS = ['notifications/initialized', 'notifications/cancelled', 'notifications/progress', 'notifications/roots/list_changed', 'notifications/whatever', 'notifications/message'];

/** Request ids a cancellation may name: never used by a request, so no response is ever dropped. */
export const CANCEL_PREFIX = 'never-';

/** Adds a key as an own, enumerable property even when it is `__proto__`. */
function put(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Builds one line: a JSON text with markers for raw tokens and raw byte runs, then the bytes. */
class LineBuilder {
  readonly #raw: string[] = [];
  readonly #bytes: Buffer[] = [];
  /** A value that is written as the raw JSON token `token`. */
  raw(token: string): string { this.#raw.push(token); return `@@R${this.#raw.length - 1}@@`; }
  /** Text to place inside a string value; it is written as these exact bytes. */
  bytes(b: Buffer): string { this.#bytes.push(b); return `@@B${this.#bytes.length - 1}@@`; }
  render(value: unknown): Buffer {
    const text = (JSON.stringify(value) ?? 'null').replace(/"@@R(\d+)@@"/g, (_, i: string) => this.#raw[Number(i)] ?? 'null');
    const parts: Buffer[] = [];
    let at = 0;
    for (const m of text.matchAll(/@@B(\d+)@@/g)) {
      parts.push(Buffer.from(text.slice(at, m.index), 'utf8'), this.#bytes[Number(m[1])] ?? Buffer.alloc(0));
      at = (m.index ?? 0) + m[0].length;
    }
    parts.push(Buffer.from(text.slice(at), 'utf8'));
    return Buffer.concat(parts);
  }
}

export interface GeneratorOptions { sessionIds: readonly string[]; maxDepth: number }

/** What the generator produced, for the coverage assertions. */
export interface GeneratorStats { validMethods: Map<string, number>; validTools: Map<string, number>; kinds: Map<string, number> }

export class LineGenerator {
  readonly #r: Prng;
  readonly #o: GeneratorOptions;
  #serial = 0;
  readonly stats: GeneratorStats = { validMethods: new Map(), validTools: new Map(), kinds: new Map() };

  constructor(r: Prng, o: GeneratorOptions) { this.#r = r; this.#o = o; }

  /** One line without its terminator; it never contains a newline byte. */
  next(): Buffer {
    const r = this.#r;
    const kind = r.weighted<string>([
      [30, 'valid'], [30, 'mutated'], [6, 'notification'], [6, 'truncated'], [5, 'corrupted'], [5, 'random-json'],
      [4, 'random-bytes'], [3, 'bad-utf8'], [3, 'blank'], [3, 'deep'], [3, 'client-response'], [1, 'big'], [1, 'crlf'],
    ]);
    this.stats.kinds.set(kind, (this.stats.kinds.get(kind) ?? 0) + 1);
    const b = new LineBuilder();
    let out: Buffer;
    switch (kind) {
      case 'valid': out = b.render(this.#request(b, true)); break;
      case 'mutated': out = b.render(this.#mutate(b, this.#request(b, false))); break;
      case 'notification': out = b.render(this.#notification()); break;
      case 'truncated': { const full = b.render(this.#request(b, false)); out = full.subarray(0, r.int(0, full.length - 1)); break; }
      case 'corrupted': out = this.#corrupt(b.render(this.#request(b, false))); break;
      case 'random-json': out = b.render(this.#randomValue(b, r.int(0, 4))); break;
      case 'random-bytes': out = r.chance(0.5) ? r.bytes(r.int(1, 200)) : Buffer.from(this.#printable(r.int(1, 120)), 'latin1'); break;
      case 'bad-utf8': out = this.#badUtf8(b); break;
      case 'blank': out = Buffer.from(r.pick(['', ' ', '\t', '  \t ', '\r', '\u00a0', '\ufeff', '\u2028']), 'utf8'); break;
      case 'deep': out = this.#deep(b); break;
      case 'client-response': out = b.render(this.#clientResponse(b)); break;
      case 'big': out = b.render({ jsonrpc: '2.0', id: this.#id(b), method: 'tools/call', params: { name: 'create_task', arguments: { mode_slug: 'code', initial_message: 'x'.repeat(r.int(10_000, 60_000)) } } }); break;
      default: out = Buffer.concat([b.render(this.#request(b, true)), Buffer.from('\r')]); break;
    }
    return out.includes(0x0a) ? Buffer.from(out.toString('latin1').replace(/\n/g, ' '), 'latin1') : out;
  }

  /** A fresh id of a usable type, most often, and sometimes of every unusable one. */
  #id(b: LineBuilder): unknown {
    const r = this.#r;
    const n = ++this.#serial;
    return r.weighted<() => unknown>([
      [30, () => n + 100_000],
      [20, () => `s${n}`],
      [3, () => 0],
      [3, () => -n],
      [3, () => Number.MAX_SAFE_INTEGER - n],
      [2, () => Number.MIN_SAFE_INTEGER + n],
      [4, () => `s${n}${r.pick(ODD_TEXT)}`],
      [1, () => ''],
      [2, () => `s${n}${b.bytes(Buffer.from(r.pick(BAD_UTF8)))}`],
      [2, () => b.raw(r.pick([`${n + 100_000}.0`, `${n + 100_000}e0`, '-0', '1e400', '9007199254740993', `${n}.5`]))],
      [2, () => null], [1, () => true], [1, () => false], [1, () => 1.5],
      [1, () => ({})], [1, () => []], [1, () => ({ id: n })], [1, () => [n]],
    ])();
  }

  #request(b: LineBuilder, record: boolean): Record<string, unknown> {
    const r = this.#r;
    const method = r.chance(0.05) ? r.pick(UNKNOWN_METHODS) : r.pick(METHODS);
    const params = this.#paramsFor(method, record);
    if (record) this.stats.validMethods.set(method, (this.stats.validMethods.get(method) ?? 0) + 1);
    const msg: Record<string, unknown> = { jsonrpc: '2.0', id: this.#id(b), method };
    if (params !== undefined) msg.params = params;
    return msg;
  }

  #paramsFor(method: string, record: boolean): Record<string, unknown> | undefined {
    const r = this.#r;
    switch (method) {
      case 'initialize': return { protocolVersion: r.pick(VERSIONS), capabilities: r.chance(0.5) ? {} : { roots: {} }, clientInfo: { name: 'fuzz', version: '1' } };
      case 'ping': return r.chance(0.5) ? undefined : {};
      case 'logging/setLevel': return { level: r.pick(LEVELS) };
      case 'tools/list': case 'resources/list': case 'resources/templates/list': case 'prompts/list':
        return r.chance(0.7) ? {} : { cursor: r.pick(['', 'bogus', '0', 'eyJvZmZzZXQiOjF9', '\ud800']) };
      case 'resources/read': case 'resources/subscribe': case 'resources/unsubscribe': return { uri: r.pick(URIS) };
      case 'prompts/get': return { name: r.pick(MODES), arguments: r.chance(0.5) ? {} : { task: r.pick(ODD_TEXT) } };
      case 'completion/complete': return { ref: { type: 'ref/resource', uri: 'mode://{slug}' }, argument: { name: 'slug', value: r.pick(['', 'c', 'a', '😀']) } };
      case 'tools/call': {
        const tool = r.chance(0.03) ? r.pick(['no_such_tool', '', '__proto__', 'constructor']) : r.pick(TOOLS);
        if (record) this.stats.validTools.set(tool, (this.stats.validTools.get(tool) ?? 0) + 1);
        return { name: tool, arguments: this.#toolArgs(tool) };
      }
      default: return r.chance(0.5) ? undefined : {};
    }
  }

  #session(): string {
    const r = this.#r;
    return r.weighted<() => string>([
      [6, () => r.pick(this.#o.sessionIds)],
      [2, () => `ses_${'0123456789abcdef'.repeat(2).slice(0, 24)}`],
      [1, () => 'ses_../../etc/passwd'],
      [1, () => r.pick(ODD_TEXT) || 'x'],
    ])();
  }

  #toolArgs(tool: string): Record<string, unknown> {
    const r = this.#r;
    switch (tool) {
      case 'list_modes': return r.chance(0.3) ? {} : { source: r.pick(['builtin', 'global', 'project', 'all']) };
      case 'get_mode_info': return { mode_slug: r.pick(MODES.filter(Boolean)), include_system_prompt: r.chance(0.2) };
      case 'create_task': return { mode_slug: r.pick(MODES.filter(Boolean)), ...(r.chance(0.5) ? { initial_message: r.pick(ODD_TEXT) } : {}), ...(r.chance(0.2) ? { parent_session_id: this.#session() } : {}) };
      case 'switch_mode': return { session_id: this.#session(), new_mode_slug: r.pick(MODES.filter(Boolean)), ...(r.chance(0.5) ? { reason: r.pick(ODD_TEXT) } : {}) };
      case 'get_task_info': return { session_id: this.#session(), include_messages: r.chance(0.5), include_hierarchy: r.chance(0.5) };
      case 'validate_tool_use': return { session_id: this.#session(), tool_name: r.pick(ROO_TOOLS), ...(r.chance(0.6) ? { file_path: r.pick(PATHS) } : {}), ...(r.chance(0.5) ? { enforce: r.chance(0.5) } : {}) };
      case 'complete_task': return { session_id: this.#session(), status: r.pick(['completed', 'failed', 'cancelled']), ...(r.chance(0.5) ? { result: r.pick(ODD_TEXT) } : {}), cascade: r.chance(0.3) };
      case 'orchestrator_mode_list': return { include_invalid: r.chance(0.5), show_details: r.chance(0.5) };
      case 'orchestrator_mode_validate': return { mode_file: r.pick(['default_roles.yaml', 'nope.yaml', '../../x.yaml']) };
      case 'orchestrator_mode_backup': return r.chance(0.5) ? {} : { backup_name: r.pick(['fuzz', '../x', 'a b']) };
      case 'orchestrator_mode_select': return { mode_file: r.pick(['default_roles.yaml', '.roomodes', 'nope.yaml', '../x.yaml']), ...(r.chance(0.3) ? { backup_current: false } : {}) };
      case 'orchestrator_mode_create': return { mode_name: `fuzz-${++this.#serial}`, ...(r.chance(0.2) ? { template_source: r.pick(['default_roles.yaml', 'nope.yaml']) } : {}) };
      case 'orchestrator_mode_restore': return { backup_file: r.pick(['mode_backup_20250101_000000.yaml', '../x.yaml']) };
      case 'export_mode': return { mode_slug: r.pick(MODES.filter(Boolean)) };
      case 'import_mode': return {
        yaml: r.pick(['customModes: []\n', '{{', 'customModes:\n  - slug: fuzz-imp\n    name: I\n    roleDefinition: r\n    groups: [read]\n    rulesFiles:\n      - relativePath: ../x.md\n        content: x\n', r.pick(ODD_TEXT) || 'x']),
        dry_run: r.chance(0.5),
      };
      case 'create_mode': return {
        slug: `fuzz-${++this.#serial}`, name: 'F', role_definition: r.pick(ODD_TEXT) || 'r', groups: [{ group: r.pick(['read', 'edit', 'web']) }],
        ...(r.chance(0.3) ? { session_id: this.#session() } : {}),
      };
      case 'update_mode': return { slug: r.pick(['fuzz-1', 'code', 'nope']), name: r.pick(ODD_TEXT) || 'U' };
      case 'delete_mode': return { slug: r.pick(['fuzz-1', 'fuzz-2', 'code', 'nope']), remove_rules: r.chance(0.3) };
      default: return {};
    }
  }

  /** A value of some other type than the field's, or a hostile key, or nesting in its place. */
  #wrong(b: LineBuilder): unknown {
    const r = this.#r;
    return r.weighted<() => unknown>([
      [3, () => null], [2, () => r.chance(0.5)], [3, () => b.raw(r.pick(ODD_NUMBERS))], [2, () => r.int(-5, 5)],
      [2, () => []], [2, () => ({})], [2, () => [r.pick(ODD_TEXT)]], [3, () => r.pick(ODD_TEXT)],
      [1, () => 'x'.repeat(r.int(300, 70_000))], [1, () => this.#nest(r.int(1, Math.min(200, this.#o.maxDepth)), 'leaf')],
      [1, () => { const o: Record<string, unknown> = {}; put(o, r.pick(PROTO_KEYS), { polluted: true }); return o; }],
    ])();
  }

  #mutate(b: LineBuilder, msg: Record<string, unknown>): Record<string, unknown> {
    const r = this.#r;
    const out: Record<string, unknown> = { ...msg };
    const params = isRecord(out.params) ? { ...out.params } : undefined;
    const times = r.int(1, 3);
    for (let i = 0; i < times; i++) {
      const what = r.pick(['jsonrpc', 'id', 'id', 'method', 'params', 'param-field', 'arg-field', 'proto', 'extra', 'drop']);
      switch (what) {
        case 'jsonrpc': out.jsonrpc = r.pick<unknown>(['1.0', 2, 2.0, null, ['2.0'], '2.0 ', '', { v: '2.0' }]); break;
        case 'id': out.id = this.#id(b); break;
        case 'method': out.method = r.chance(0.5) ? this.#wrong(b) : r.pick(UNKNOWN_METHODS); break;
        case 'params': out.params = this.#wrong(b); break;
        case 'param-field': if (params) { const keys = Object.keys(params); if (keys.length) params[r.pick(keys)] = this.#wrong(b); out.params = params; } break;
        case 'arg-field': {
          if (params && isRecord(params.arguments)) {
            const args = { ...params.arguments };
            const keys = Object.keys(args);
            if (keys.length) args[r.pick(keys)] = this.#wrong(b); else args.extra = this.#wrong(b);
            params.arguments = args;
            out.params = params;
          }
          break;
        }
        case 'proto': {
          const target = params && r.chance(0.6) ? (isRecord(params.arguments) && r.chance(0.5) ? (params.arguments = { ...params.arguments }) as Record<string, unknown> : params) : out;
          put(target, r.pick(PROTO_KEYS), r.chance(0.5) ? { jsonrpc: '2.0', method: 'ping', isAdmin: true } : this.#wrong(b));
          if (params) out.params = params;
          break;
        }
        case 'extra': put(out, r.pick(['result', 'error', 'extra', 'ID', 'Method']), this.#wrong(b)); break;
        default: delete out[r.pick(['jsonrpc', 'id', 'method', 'params'])];
      }
    }
    return out;
  }

  #notification(): Record<string, unknown> {
    const r = this.#r;
    const method = r.pick(NOTIFICATIONS);
    const n = ++this.#serial;
    const params: Record<string, unknown> | undefined = method === 'notifications/cancelled'
      ? { requestId: `${CANCEL_PREFIX}${n}`, reason: r.pick(ODD_TEXT) }
      : method === 'notifications/progress' ? { progressToken: n, progress: 0.5 } : r.chance(0.5) ? {} : undefined;
    return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
  }

  #clientResponse(b: LineBuilder): Record<string, unknown> {
    const r = this.#r;
    const id = r.chance(0.2) ? null : this.#id(b);
    return r.chance(0.5) ? { jsonrpc: '2.0', id, result: r.chance(0.5) ? {} : this.#wrong(b) } : { jsonrpc: '2.0', id, error: { code: r.int(-33000, -32000), message: r.pick(ODD_TEXT) } };
  }

  #randomValue(b: LineBuilder, depth: number): unknown {
    const r = this.#r;
    if (depth <= 0 || r.chance(0.3)) {
      return r.weighted<() => unknown>([[2, () => null], [2, () => r.chance(0.5)], [3, () => b.raw(r.pick(ODD_NUMBERS))], [3, () => r.pick(ODD_TEXT)], [1, () => r.pick(['2.0', 'ping', 'id', 'method'])]])();
    }
    if (r.chance(0.4)) return Array.from({ length: r.int(0, 4) }, () => this.#randomValue(b, depth - 1));
    const o: Record<string, unknown> = {};
    for (let i = r.int(0, 5); i > 0; i--) {
      put(o, r.pick(['jsonrpc', 'id', 'method', 'params', 'result', 'error', ...PROTO_KEYS, r.pick(ODD_TEXT)]), this.#randomValue(b, depth - 1));
    }
    return o;
  }

  #nest(depth: number, leaf: unknown): unknown {
    let v = leaf;
    for (let i = 0; i < depth; i++) v = this.#r.chance(0.5) ? [v] : { k: v };
    return v;
  }

  #deep(b: LineBuilder): Buffer {
    const r = this.#r;
    const depth = r.int(50, this.#o.maxDepth);
    const where = r.int(0, 2);
    if (where === 0) return Buffer.from('['.repeat(depth) + ']'.repeat(depth)); // a valid, deep, non-request value
    if (where === 1) return Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"ping","params":${'['.repeat(depth)}`); // unterminated
    const msg = this.#request(b, false);
    msg.params = { name: 'list_modes', arguments: { source: this.#nest(depth, 'all') }, deep: this.#nest(depth, null) };
    return b.render(msg);
  }

  #corrupt(line: Buffer): Buffer {
    const r = this.#r;
    const out = Buffer.from(line);
    const at = r.int(0, Math.max(0, out.length - 1));
    const how = r.int(0, 2);
    if (how === 0) { out[at] = r.int(0, 255); return out; }
    if (how === 1) return Buffer.concat([out.subarray(0, at), out.subarray(at + 1)]);
    return Buffer.concat([out.subarray(0, at), Buffer.from(r.pick(['{', '}', '"', ',', ':', '\\', '[', '\u0000'])), out.subarray(at)]);
  }

  #badUtf8(b: LineBuilder): Buffer {
    const r = this.#r;
    const bad = Buffer.from(r.pick(BAD_UTF8));
    if (r.chance(0.6)) {
      // Inside a string value: still JSON once decoded (the bad bytes read as U+FFFD).
      const msg: Record<string, unknown> = { jsonrpc: '2.0', id: this.#id(b), method: 'tools/call', params: { name: 'get_mode_info', arguments: { mode_slug: `code${b.bytes(bad)}` } } };
      return b.render(msg);
    }
    const line = b.render(this.#request(b, false));
    const at = r.int(0, line.length);
    return Buffer.concat([line.subarray(0, at), bad, line.subarray(at)]);
  }

  #printable(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(this.#r.int(0x20, 0x7e));
    return s;
  }
}
