// The tool registry: pairs each schemas/tools/<name>.json with its handler, serves tools/list and
// runs tools/call (argument validation, result shape, error style). Handlers never see the wire.
import { readdir, readFile } from 'node:fs/promises';
import { InvalidParamsError, RpcError, ValidationError, quoteName, shortList } from '../rpc/errors.js';
import { isRecord, type Params } from '../rpc/jsonrpc.js';
import { PreSerialized, type RequestContext } from '../rpc/dispatch.js';
import type { SchemaIssue } from '../schema/validate.js';
import { atLeast } from './lifecycle.js';
import { MODERN_VERSIONS } from './eras.js';
import { appOnly, toolMeta } from './apps.js';
import { paginate } from './pagination.js';
import type { ToolCallContext, ToolFamily, ToolHandler, ToolResult } from './tool-types.js';

export const TOOL_SCHEMA_DIR = new URL('../../schemas/tools/', import.meta.url);

/** One schemas/tools/<name>.json file. */
export interface ToolSpec {
  name: string;
  title?: string;
  description: string;
  annotations?: Record<string, unknown>;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

type Check = (v: unknown, root: string) => SchemaIssue[];
interface Entry { spec: ToolSpec; handler: ToolHandler; check: Check }

/** Reads every tool spec file (at startup, before serving). */
export async function readToolSpecs(dir: URL = TOOL_SCHEMA_DIR): Promise<Map<string, ToolSpec>> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  const read = await Promise.all(names.map(async (file) => {
    const spec = JSON.parse(await readFile(new URL(file, dir), 'utf8')) as ToolSpec;
    if (`${spec.name}.json` !== file) throw new Error(`schemas/tools/${file} names the tool ${JSON.stringify(spec.name)}`);
    return spec;
  }));
  // Filled in file-name order, not in the order the reads finished, so tools/list is stable.
  return new Map(read.map((spec) => [spec.name, spec]));
}

/** The tools this server offers: every spec, except the roo_ipc_* ones when no IPC socket is set. */
export function offeredSpecs(specs: ReadonlyMap<string, ToolSpec>, ipcEnabled: boolean): Map<string, ToolSpec> {
  return new Map([...specs].filter(([name]) => ipcEnabled || !name.startsWith('roo_ipc_')));
}

export interface ListingOptions {
  pageSize: number;
  toolErrors: 'jsonrpc' | 'result';
  protocolVersion: () => string;
}

/**
 * tools/list, from the spec files alone: listing tools needs none of the code behind them, so a
 * client that only lists (or has not called anything yet) does not load the feature modules.
 */
export class ToolListing {
  readonly #cache = new Map<string, string[]>();
  /**
   * Each non-empty page's answer, by revision and cursor. Answers then share one string, so a
   * client that sends many tools/list and reads slowly holds queued answers that cost almost
   * nothing each (bounded: one entry per page start and revision).
   */
  readonly #pages = new Map<string, PreSerialized>();

  constructor(readonly specs: ReadonlyMap<string, ToolSpec>, private readonly o: ListingOptions) {}

  /**
   * Entries shaped for the negotiated revision (the caller's connection's, when given), serialised
   * once per revision. `apps`: the client offers MCP Apps, so the view's tools are listed and carry
   * its `_meta`; without it the list is exactly the one a server without the view would give.
   */
  list(params: Params, version = this.o.protocolVersion(), apps = false): PreSerialized {
    const variant = apps ? `${version} ui` : version;
    let items = this.#cache.get(variant);
    if (!items) {
      items = [...this.specs.values()].filter((spec) => apps || !appOnly(spec.name))
        .map((spec) => JSON.stringify(toolForVersion(spec, version, this.o.toolErrors, apps)));
      this.#cache.set(variant, items);
    }
    const page = paginate(items, params.cursor, this.o.pageSize);
    const key = `${variant} ${String(params.cursor ?? '')}`;
    const cached = this.#pages.get(key);
    if (cached) return cached;
    const next = page.nextCursor === undefined ? '' : `,"nextCursor":${JSON.stringify(page.nextCursor)}`;
    const answer = new PreSerialized(`{"tools":[${page.items.join(',')}]${next}}`);
    if (page.items.length > 0) this.#pages.set(key, answer);
    return answer;
  }
}

export interface ToolRegistryOptions {
  listing: ToolListing;
  /** The schema compiler (src/schema/validate.ts), passed in so listing tools never loads it. */
  compile: (schema: Record<string, unknown>) => Check;
  families: readonly ToolFamily[];
  toolErrors: 'jsonrpc' | 'result';
  /** The revision of the connection `ctx` belongs to (several connections share one registry over HTTP). */
  protocolVersion: (ctx: RequestContext) => string;
  progress: (ctx: RequestContext, progress: number, total?: number, message?: string) => void;
  /** Refuse argument keys a tool does not define (server.strict); otherwise they are ignored and named. */
  strictArguments?: boolean;
}

const NONE: readonly string[] = Object.freeze([]);

const propertiesOf = (schema: Record<string, unknown>): Record<string, unknown> => (isRecord(schema.properties) ? schema.properties : {});

/**
 * Keys of `args` that the schema does not define (only for schemas that close their properties).
 * Every call asks, and nearly every answer is "none": that answer allocates nothing.
 */
function unknownKeys(schema: Record<string, unknown>, args: Record<string, unknown>): readonly string[] {
  if (schema.additionalProperties !== false) return NONE;
  const props = propertiesOf(schema);
  let out: string[] | null = null;
  for (const k in args) if (!Object.hasOwn(props, k)) (out ??= []).push(k);
  return out ?? NONE;
}

/** What a handler sees of its call: one object, the signal made on demand (most tools never look). */
class ToolCall implements ToolCallContext {
  constructor(
    private readonly ctx: RequestContext,
    readonly protocolVersion: string,
    private readonly report: ToolRegistryOptions['progress'],
  ) {}

  get signal(): AbortSignal { return this.ctx.signal; }

  progress(progress: number, total?: number, message?: string): void { this.report(this.ctx, progress, total, message); }
}

export class ToolRegistry {
  readonly #entries = new Map<string, Entry>();
  readonly #serialized = new WeakMap<ToolResult, Map<string, PreSerialized>>();
  readonly #o: ToolRegistryOptions;

  constructor(o: ToolRegistryOptions) {
    this.#o = o;
    for (const family of o.families) {
      for (const [name, handler] of Object.entries(family)) {
        const spec = o.listing.specs.get(name);
        if (!spec) throw new Error(`tool ${name} has a handler but is not offered (no schemas/tools/${name}.json?)`);
        // Two families naming one tool would leave the call to whichever came last, silently.
        if (this.#entries.has(name)) throw new Error(`tool ${name} has two handlers (two tool families name it)`);
        // Compiled once, up front: every call then validates synchronously, in arrival order.
        this.#entries.set(name, { spec, handler, check: o.compile(spec.inputSchema) });
      }
    }
    // What is listed and what can be called must be the same set.
    for (const name of o.listing.specs.keys()) {
      if (!this.#entries.has(name)) throw new Error(`tool ${name} is offered but has no handler`);
    }
  }

  /** The tools a client may call; the view's own only for a client that offers MCP Apps. */
  names(apps = false): string[] { return [...this.#entries.keys()].filter((name) => apps || !appOnly(name)); }

  /**
   * tools/call: unknown tool → -32602; bad arguments → -32004 with the JSON path. Synchronous
   * handlers are answered synchronously (no promise hop on the hot path). `apps`: the client offers
   * MCP Apps; to any other, the view's own tools do not exist.
   */
  call(params: Params, ctx: RequestContext, apps = false): unknown {
    const name = params.name;
    if (typeof name !== 'string') throw new InvalidParamsError('tools/call needs a "name" string', { message: 'params.name: expected string' });
    const entry = apps || !appOnly(name) ? this.#entries.get(name) : undefined;
    if (!entry) {
      // The message itself lists the tools: several clients (the Inspector among them) never show data.
      const names = this.names(apps);
      throw new InvalidParamsError(`Unknown tool ${quoteName(name)}. Available tools: ${shortList(names)}`, {
        message: `No tool of this name; available: ${names.join(', ')}`,
        available_tools: names,
      });
    }
    let args = params.arguments ?? {};
    if (!isRecord(args)) throw new InvalidParamsError('tools/call "arguments" must be an object', { message: 'params.arguments: expected object' });
    // Models add keys of their own; unless strict, they are dropped and named in the answer.
    const extra = this.#o.strictArguments ? NONE : unknownKeys(entry.spec.inputSchema, args);
    let warnings = NONE;
    if (extra.length > 0) {
      args = Object.fromEntries(Object.entries(args).filter(([k]) => !extra.includes(k)));
      warnings = extra.map((k) => `ignored the unknown argument ${quoteName(k)}`);
    }
    const version = this.#o.protocolVersion(ctx);
    let out: ToolResult | Promise<ToolResult>;
    try {
      const issues = entry.check(args, 'arguments');
      if (issues.length > 0) {
        // A misspelt key (slug for mode_slug) is dropped above; said here, the missing one makes sense.
        const ignored = extra.length === 0 ? '' : ` (ignored the unknown argument${extra.length === 1 ? '' : 's'} ${extra.slice(0, 5).map(quoteName).join(', ')}; ${name} takes ${Object.keys(propertiesOf(entry.spec.inputSchema)).map(quoteName).join(', ')})`;
        const invalid = new ValidationError(`Invalid arguments for ${name}: ${issues[0]!.message}${ignored}`, {
          message: issues.map((i) => i.message).join('; '),
          issues: issues.map((i) => ({ path: i.path, message: i.message })),
        });
        // 2026-07-28 counts input validation among tool execution errors (isError results the model can act on).
        if (version >= MODERN_VERSIONS[0]) return errorResult(invalid, version);
        throw invalid;
      }
      out = entry.handler(args as Record<string, unknown>, new ToolCall(ctx, version, this.#o.progress));
    } catch (err) {
      return this.#failed(err, version);
    }
    return out instanceof Promise
      ? out.then((o) => this.#wire(o, version, warnings), (err: unknown) => this.#failed(err, version))
      : this.#wire(out, version, warnings);
  }

  /** A failure: an isError result when server.tool_errors is "result", else thrown on as the JSON-RPC error. */
  #failed(err: unknown, version: string): unknown {
    if (this.#o.toolErrors === 'result' && err instanceof RpcError) return errorResult(err, version);
    throw err;
  }

  /**
   * The result on the wire. Handlers that answer from a cache return the same ToolResult object
   * again, marked `reused`; its serialised form is then kept (the entry dies with the object).
   */
  #wire(out: ToolResult, version: string, warnings: readonly string[]): PreSerialized {
    if (warnings.length > 0) {
      // Outside structuredContent (whose schema is the tool's own) and never cached.
      const content = [{ type: 'text', text: out.text }, { type: 'text', text: `Note: ${warnings.join('; ')}.` }];
      return new PreSerialized(resultJson(content, out.metadata, version, `,"warnings":${JSON.stringify(warnings)}`));
    }
    if (out.reused !== true) return new PreSerialized(resultJson([{ type: 'text', text: out.text }], out.metadata, version, ''));
    let perVersion = this.#serialized.get(out);
    const cached = perVersion?.get(version);
    if (cached !== undefined) return cached;
    const json = asciiJson(resultJson([{ type: 'text', text: out.text }], out.metadata, version, ''));
    const answer = new PreSerialized(json, Buffer.from(json, 'latin1'));
    if (!perVersion) { perVersion = new Map(); this.#serialized.set(out, perVersion); }
    perVersion.set(version, answer);
    return answer;
  }
}

/**
 * A tool result's JSON. `metadata` and `structuredContent` are the same object, so it is
 * serialised once and the text spliced in twice (stringify was 8% of a validate_tool_use profile).
 * Key order as before: content, metadata, [extra], structuredContent.
 */
function resultJson(content: readonly unknown[], metadata: Record<string, unknown>, version: string, extra: string): string {
  const shared = JSON.stringify(metadata);
  const head = `{"content":${JSON.stringify(content)},"metadata":${shared}${extra}`;
  return atLeast(version, '2025-06-18') ? `${head},"structuredContent":${shared}}` : `${head}}`;
}

/**
 * The same JSON with every non-ASCII character written as a \u escape. A cached answer is written
 * again and again; a string with one emoji is stored two bytes per character and is transcoded on
 * every write, while an ASCII one is copied as it is (the encoding was the largest item of the
 * profile: +25% throughput on cached answers). Costs a few bytes per emoji, paid once per answer.
 */
export function asciiJson(json: string): string {
  return json.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A tool failure as an isError result (server.tool_errors "result"). */
function errorResult(err: RpcError, version: string): Record<string, unknown> {
  const wire = err.toWire();
  const result: Record<string, unknown> = {
    content: [{ type: 'text', text: `Error ${wire.code}: ${wire.message}${describeData(wire.data)}` }],
    isError: true,
    metadata: { error: wire },
  };
  if (atLeast(version, '2025-06-18')) result.structuredContent = wire;
  return result;
}

function describeData(data: unknown): string {
  if (typeof data === 'string') return `\n${data}`;
  if (isRecord(data) && typeof data.message === 'string') return `\n${data.message}`;
  return '';
}

/** The structuredContent of an isError result when tool failures are results. */
const ERROR_RESULT_SCHEMA = {
  type: 'object',
  description: 'The failure, when server.tool_errors is "result".',
  properties: {
    code: { type: 'integer', description: 'The JSON-RPC error code (see the error table).' },
    message: { type: 'string', description: 'What went wrong.' },
    data: {
      description: 'Details: a string, or an object with a message and the precise fields.',
      anyOf: [{ type: 'string', description: 'Details in words.' }, { type: 'object', description: 'Details as fields.' }],
    },
  },
  required: ['code', 'message'],
};

/**
 * Gate revision-specific fields: annotations from 2025-03-26; title and outputSchema from 2025-06-18.
 * The view's `_meta` goes to MCP Apps clients on every revision, as the extension does not gate it.
 */
function toolForVersion(spec: ToolSpec, version: string, toolErrors: 'jsonrpc' | 'result', apps: boolean): Record<string, unknown> {
  const tool: Record<string, unknown> = { name: spec.name };
  if (spec.title && atLeast(version, '2025-06-18')) tool.title = spec.title;
  tool.description = spec.description;
  tool.inputSchema = spec.inputSchema;
  if (spec.outputSchema && atLeast(version, '2025-06-18')) {
    // Clients validate structuredContent against outputSchema even on isError results, so when
    // failures are results the schema admits the error object too.
    tool.outputSchema = toolErrors === 'result'
      ? { type: 'object', anyOf: [spec.outputSchema, ERROR_RESULT_SCHEMA] }
      : spec.outputSchema;
  }
  if (spec.annotations && atLeast(version, '2025-03-26')) tool.annotations = spec.annotations;
  const meta = apps ? toolMeta(spec.name) : undefined;
  if (meta) tool._meta = meta;
  return tool;
}
