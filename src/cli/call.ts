// `roo-modes-server call`: one tool or method call (or a JSON-lines script of them) against this
// server or any stdio MCP server, printing text or raw JSON. It never writes to process.stdout.

import { resolve } from 'node:path';
import { connectHttp, connectStdio, type McpClient } from '../client/client.js';
import type { JsonObject } from '../client/peer.js';
import {
  McpAbortError,
  McpError,
  McpTimeoutError,
  ServerExitedError,
  SpawnError,
  UnsupportedProtocolVersionError,
} from '../client/errors.js';
import { ShellWordsError, splitShellWords } from '../export/shell-words.js';
import { readScript, resolveReferences, type Step } from './call-script.js';
import { readCommand, usageMessage, UsageError, type Command, type Option, type Values } from './options.js';
import { cliProjectRoot } from './project-root.js';
import { stepHeading, stepRecord } from './call-output.js';
import { isRecord as isObject } from '../rpc/jsonrpc.js';
import { PROTOCOL_VERSIONS } from '../mcp/lifecycle.js';
import { MODERN_VERSIONS } from '../mcp/eras.js';

export interface CallIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** The argv that starts this very server; used when --server is not given. */
  selfCommand: string[];
}

/** One --arg: `key=value`. */
function argPair(pair: string): [string, string] {
  const at = pair.indexOf('=');
  if (at <= 0) throw new UsageError(`--arg expects key=value, got "${pair}"`);
  return [pair.slice(0, at), pair.slice(at + 1)];
}

function jsonObject(text: string): JsonObject {
  let json: unknown;
  try { json = JSON.parse(text); } catch (err) {
    throw new UsageError(`--json is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isObject(json)) throw new UsageError('--json must be a JSON object');
  return json;
}

function serverWords(text: string): string[] {
  let words: string[];
  try { words = splitShellWords(text); } catch (err) {
    throw new UsageError(`--server: ${err instanceof ShellWordsError ? err.message : String(err)}`);
  }
  if (words.length === 0) throw new UsageError('--server is empty');
  return words;
}

function httpUrl(url: string): string {
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new UsageError(`--url expects an http:// or https:// URL, got "${url}"`);
  return url;
}

const OPTIONS = [
  { name: '--arg', kind: 'string', value: 'key=value', repeatable: true, parse: argPair,
    help: "one tool argument, typed by the tool's inputSchema (boolean, number, integer, object/array as JSON, string as is); repeatable; wins over --json" },
  { name: '--json', kind: 'string', value: "['{...}']", optionalValue: true, parse: jsonObject,
    help: 'with an object: the whole arguments (or params) object\nalone (last, or before another option): print each call\'s answer as one JSON line: {"line": N, "tool" or "method": NAME, "result": {...} or "error": {...}} ("line" only with --script); a call that got no answer has no line' },
  { name: '--script', kind: 'path', value: 'FILE',
    help: 'JSON lines, one call each: {"tool": "...", "arguments": {...}} or {"method": "...", "params": {...}}, all in one session; a string argument that is exactly $prev.<path> or $<line>.<path> (e.g. $prev.metadata.session_id, $2.list[0].id) is replaced by that field of an earlier result; as text, each answer opens with a line "==> line N: NAME <==" naming its call' },
  { name: '--server', kind: 'string', value: '"CMD"', parse: serverWords,
    help: 'the server command line (shell-style quoting, no expansion); default: this server, in the project found from the current directory (the nearest folder up holding .roomodes, .roo/ or .git; another project: --server "roo-modes-server --project-root DIR")' },
  { name: '--url', kind: 'string', value: 'URL', parse: httpUrl,
    help: 'talk to a running server over Streamable HTTP instead (serve --http), e.g. http://127.0.0.1:3000/mcp; its token comes from ROO_MODES_HTTP_TOKEN' },
  { name: '--sessions-dir', kind: 'path', value: 'DIR',
    help: "keep the server's sessions in DIR, so a later call can use a session_id from this one (passed to the server as ROO_MODES_SESSIONS_DIR, which also works set); with ROO_MODES_STORE set (a Redis URL) they are shared through Redis instead" },
  { name: '--protocol', kind: 'enum', value: 'REV', choices: [...MODERN_VERSIONS, ...[...PROTOCOL_VERSIONS].reverse()],
    help: 'the protocol revision to speak: 2026-07-28 (stateless: server/discover, then _meta on every request, no initialize) or a legacy one offered in initialize (2025-11-25 by default; 2025-06-18, 2025-03-26, 2024-11-05)' },
  { name: '--timeout', kind: 'number', value: 'MS', min: 1, what: 'a positive number of milliseconds', default: 30_000,
    help: 'limit for the whole run, start-up included' },
  { name: '--raw', kind: 'switch', help: 'print result objects as JSON instead of their text (with --script, one compact line per call)' },
] as const satisfies readonly Option[];

type Parsed = Values<typeof OPTIONS>;

/** Which calls the command line asks for: one name, or a script and nothing else; one way to print. */
function usageProblem(p: Parsed): string | null {
  if (p.raw && p.json === true) return '--raw and --json (one JSON line per call) are two ways to print; give one';
  if (p.script !== undefined) {
    return p.operands.length > 0 || p.arg.length > 0 || typeof p.json === 'object'
      ? '--script takes its calls from the file; do not also give a name, --arg or --json' : null;
  }
  if (p.operands.length === 0) return 'name a tool or method to call';
  return p.operands.length === 1 ? null : `one name expected, got: ${p.operands.join(' ')}`;
}

const COMMAND: Command<typeof OPTIONS> = {
  name: 'call',
  usage: ["<tool|method> [--arg key=value ...] [--json '{...}'] [options]", '--script FILE [options]'],
  about: `A name containing "/" (tools/list, resources/read, …) or "ping" is sent as a JSON-RPC method with
--json (and --arg) as its params; any other name is a tool, sent as tools/call.`,
  options: OPTIONS,
  operands: true,
  check: usageProblem,
  notes: `Exit codes: 0 success; 1 tool error, JSON-RPC error or timeout; 2 usage error, or a server that
cannot start or exits early.`,
};

/** The --timeout deadline passed; carried as the abort reason so it is told apart from others. */
class DeadlineReached extends Error {}

const isMethod = (name: string): boolean => name.includes('/') || name === 'ping';

/** Types one --arg value by the schema of its property; untyped or unknown properties stay strings. */
function typeArg(key: string, text: string, schema: unknown): unknown {
  const raw = isObject(schema) ? schema.type : undefined;
  const types = Array.isArray(raw) ? raw.filter((t) => t !== 'null') : [raw];
  const type = types[0];
  if (type === 'boolean') {
    if (text === 'true') return true;
    if (text === 'false') return false;
    throw new UsageError(`--arg ${key}: expected true or false, got "${text}"`);
  }
  if (type === 'number' || type === 'integer') {
    const n = Number(text);
    if (text.trim() === '' || !Number.isFinite(n) || (type === 'integer' && !Number.isInteger(n))) {
      throw new UsageError(`--arg ${key}: expected ${type === 'integer' ? 'an integer' : 'a number'}, got "${text}"`);
    }
    return n;
  }
  if (type === 'object' || type === 'array') {
    try {
      return JSON.parse(text);
    } catch {
      throw new UsageError(`--arg ${key}: expected JSON for a${type === 'array' ? 'n array' : 'n object'}, got "${text}"`);
    }
  }
  return text;
}

async function commandLineStep(parsed: Parsed, client: McpClient, signal: AbortSignal): Promise<Step> {
  const name = parsed.operands[0]!;
  const payload: JsonObject = { ...(typeof parsed.json === 'object' ? parsed.json : {}) };
  if (isMethod(name)) {
    for (const [key, text] of parsed.arg) payload[key] = text;
    return { line: 0, kind: 'method', name, payload };
  }
  if (parsed.arg.length > 0) {
    const tool = (await client.listTools({ signal })).find((t) => t.name === name);
    const props = isObject(tool?.inputSchema.properties) ? tool.inputSchema.properties : {};
    for (const [key, text] of parsed.arg) payload[key] = typeArg(key, text, props[key]);
  }
  return { line: 0, kind: 'tool', name, payload };
}

// ---- output ------------------------------------------------------------------------------------

/** The readable part of a result: text blocks of tool content or resource contents, else JSON. */
function textOf(result: JsonObject): string {
  const blocks = Array.isArray(result.content) ? result.content : Array.isArray(result.contents) ? result.contents : undefined;
  const texts = (blocks ?? []).flatMap((b: unknown) => (isObject(b) && typeof b.text === 'string' ? [b.text] : []));
  if (texts.length > 0) return texts.join('\n');
  return JSON.stringify(result, null, 2);
}

function toolErrorLine(result: JsonObject): string {
  const s = result.structuredContent;
  if (isObject(s) && typeof s.code === 'number' && typeof s.message === 'string') return `error ${s.code}: ${s.message}`;
  return `error: ${textOf(result)}`;
}

function describeError(err: unknown, timeoutMs: number): { code: number; text: string } {
  if (err instanceof UsageError) return { code: 2, text: usageMessage('call', err.message) };
  if (err instanceof SpawnError || err instanceof ServerExitedError || err instanceof UnsupportedProtocolVersionError) {
    return { code: 2, text: `error: ${err.message}` };
  }
  if (err instanceof McpError) {
    const data = err.data === undefined ? '' : `\n${typeof err.data === 'string' ? err.data : JSON.stringify(err.data)}`;
    return { code: 1, text: `error ${err.code}: ${err.message}${data}` };
  }
  if ((err instanceof McpAbortError && err.cause instanceof DeadlineReached) || err instanceof McpTimeoutError) {
    return { code: 1, text: `error: timed out after ${timeoutMs} ms (waiting for ${err.method})` };
  }
  return { code: 1, text: `error: ${err instanceof Error ? err.message : String(err)}` };
}

export async function runCall(argv: string[], io: CallIo): Promise<number> {
  const parsed = readCommand(COMMAND, argv, io);
  if (typeof parsed === 'number') return parsed;
  let steps: Step[] | undefined;
  try {
    if (parsed.script !== undefined) steps = await readScript(parsed.script);
  } catch (err) {
    io.err(`${describeError(err, 0).text}\n`);
    return 2;
  }
  const [command, ...args] = parsed.server ?? io.selfCommand;
  // This server, started here, walks up to the project as every command does; its stderr is not
  // shown, so the walk's one line is said here (a config file may name the project instead).
  if (parsed.server === undefined && parsed.url === undefined && !io.env.ROO_MODES_CONFIG) cliProjectRoot(undefined, io);
  if (command === undefined) {
    io.err(`${usageMessage('call', 'no server command (give --server)')}\n`);
    return 2;
  }
  const jsonLines = parsed.json === true;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DeadlineReached()), parsed.timeout);
  const { signal } = deadline;
  let client: McpClient | undefined;
  let exit = 0;
  /** The call under way once its references are resolved: a failure from here on is its own. */
  let current: Step | undefined;
  try {
    // Each call starts its own server; sessions outlive it only on disk.
    const env = parsed.sessionsDir === undefined ? io.env : { ...io.env, ROO_MODES_SESSIONS_DIR: resolve(parsed.sessionsDir) };
    const common = {
      signal, connectTimeoutMs: parsed.timeout, requestTimeoutMs: parsed.timeout,
      ...(parsed.protocol === undefined ? {} : { protocolVersion: parsed.protocol }),
    };
    const token = io.env.ROO_MODES_HTTP_TOKEN;
    client = parsed.url === undefined
      ? await connectStdio({ command, args, env, ...common })
      : await connectHttp({ url: parsed.url, ...(token ? { token } : {}), ...common });
    steps ??= [await commandLineStep(parsed, client, signal)];
    const results = new Map<number, JsonObject>();
    let prevLine = 0;
    const text = !parsed.raw && !jsonLines;
    for (const step of steps) {
      const payload = resolveReferences(step.payload, step, results, prevLine) as JsonObject;
      current = step;
      // Each answer of a script opens with its call's name, a blank line apart from the previous one.
      if (text && parsed.script !== undefined) io.out(`${prevLine === 0 ? '' : '\n'}${stepHeading(step)}\n`);
      const result =
        step.kind === 'tool'
          ? await client.callTool(step.name, payload, { signal })
          : await client.request(step.name, step.name === 'ping' && Object.keys(payload).length === 0 ? undefined : payload, { signal });
      results.set(step.line, result);
      prevLine = step.line;
      const where = parsed.script === undefined ? '' : `line ${step.line}: `;
      if (jsonLines) io.out(`${stepRecord(step, { result })}\n`);
      if (parsed.raw) io.out(`${parsed.script === undefined ? JSON.stringify(result, null, 2) : JSON.stringify(result)}\n`);
      if (result.isError === true) {
        if (text) io.err(`${where}${toolErrorLine(result)}\n`);
        exit = 1;
        break;
      }
      if (text) io.out(`${textOf(result)}\n`);
    }
  } catch (err) {
    const { code, text } = describeError(err, parsed.timeout);
    if (jsonLines && current !== undefined && err instanceof McpError) {
      io.out(`${stepRecord(current, { error: { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) } })}\n`);
    }
    // In a script, say which call failed (a reference's own error already names its line).
    const where = parsed.script !== undefined && current !== undefined && !(err instanceof UsageError) ? `line ${current.line}: ` : '';
    io.err(`${where}${text}\n`);
    exit = code;
  } finally {
    clearTimeout(timer);
    if (client !== undefined) await client.close(exit === 0 ? {} : { graceMs: 500, termMs: 1000 });
  }
  return exit;
}
