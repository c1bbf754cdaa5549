// Reads one pre-tool event as each host sends it (Claude Code's and VS Code's PreToolUse, Cursor's
// preToolUse). Pure parsing; it never decides, and reads a tool's input only when asked.
import { isAbsolute } from 'node:path';

export class HookInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HookInputError';
  }
}

/** Which host's shape the event has: the answer is given in the same host's words. */
export type HookHost = 'claude-code' | 'cursor';

export interface ToolEvent {
  host: HookHost;
  toolName: string;
  /** The tool's arguments as sent; read them with pathsOf once the tool is known. */
  input: Readonly<Record<string, unknown>>;
  /** The session's folder (Claude Code's `cwd`), when absolute. */
  cwd: string | null;
  /** Cursor's first workspace root, when absolute. */
  workspaceRoot: string | null;
  /** Claude Code sets it when the call comes from a subagent (or a `--agent` session). */
  agentType: string | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The event names each host gives a pre-tool event (Cursor passes Claude Code hooks its own name). */
const EVENT_HOSTS: Readonly<Record<string, HookHost>> = { PreToolUse: 'claude-code', preToolUse: 'cursor' };

/**
 * The single-file fields: Claude Code's Write/Edit/Read (`file_path`), NotebookEdit (`notebook_path`),
 * Glob/Grep (`path`), VS Code's camelCase ones (`filePath`, `dirPath`), Cursor's `target_file`.
 */
const PATH_FIELDS = ['file_path', 'notebook_path', 'path', 'filePath', 'filepath', 'dirPath', 'target_file'] as const;
/** Fields holding a list of files (VS Code's editFiles). */
const LIST_FIELDS = ['files', 'filePaths'] as const;
/** Fields holding a list of edits, each naming its file (VS Code's multi_replace_string_in_file). */
const EDIT_LIST_FIELDS = ['replacements', 'edits'] as const;
/** Fields holding an apply_patch text, whose `*** Add/Update/Delete File:` lines name the files. */
const PATCH_FIELDS = ['input', 'patch', 'patchText', 'patch_text'] as const;
const PATCH_LINE = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm;

/** Every file the call names (absolute as the hosts send them, or relative); throws HookInputError on a malformed path field. */
export function pathsOf(input: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  const take = (v: unknown, where: string): void => {
    if (typeof v !== 'string' || v === '') throw new HookInputError(`tool_input.${where} must be a non-empty string`);
    out.push(v);
  };
  for (const f of PATH_FIELDS) if (input[f] !== undefined && input[f] !== null) take(input[f], f);
  for (const f of LIST_FIELDS) {
    const list = input[f];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) throw new HookInputError(`tool_input.${f} must be an array of paths`);
    list.forEach((v, i) => take(v, `${f}[${i}]`));
  }
  for (const f of EDIT_LIST_FIELDS) {
    const list = input[f];
    if (!Array.isArray(list)) continue;
    list.forEach((item, i) => {
      if (!isRecord(item)) return;
      for (const p of PATH_FIELDS) if (item[p] !== undefined && item[p] !== null) take(item[p], `${f}[${i}].${p}`);
    });
  }
  for (const f of PATCH_FIELDS) {
    const text = input[f];
    if (typeof text !== 'string') continue;
    for (const m of text.matchAll(PATCH_LINE)) out.push(m[1]!.trim());
  }
  return out;
}

/** The tool's arguments: an object, or (as Cursor sends an MCP tool's) a string holding one. */
function toolInput(raw: unknown): unknown {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'string') return raw;
  try { return JSON.parse(raw); } catch { return raw; }
}

/** Parses the event text; throws HookInputError saying what is wrong and where. */
export function parseToolEvent(text: string): ToolEvent {
  let value: unknown;
  try {
    // Cursor's CLI on Windows puts a byte-order mark before the JSON.
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    throw new HookInputError(`the event on stdin is not JSON (${(err as Error).message})`);
  }
  return toolEventOf(value);
}

/** The same for an event already parsed (a host that calls us in its own process); throws HookInputError. */
export function toolEventOf(value: unknown): ToolEvent {
  if (!isRecord(value)) throw new HookInputError('the event on stdin must be a JSON object');
  const event = value.hook_event_name;
  const host = event === undefined ? 'claude-code' : typeof event === 'string' ? EVENT_HOSTS[event] : undefined;
  if (host === undefined) {
    throw new HookInputError(`hook_event_name is ${JSON.stringify(event)}; this hook answers PreToolUse (Claude Code, VS Code) and preToolUse (Cursor) events only`);
  }
  const toolName = value.tool_name;
  if (typeof toolName !== 'string' || toolName === '') throw new HookInputError('tool_name must be a non-empty string');
  const input = toolInput(value.tool_input);
  if (!isRecord(input)) throw new HookInputError('tool_input must be a JSON object (or a string holding one)');
  const absolute = (v: unknown): string | null => (typeof v === 'string' && isAbsolute(v) ? v : null);
  const roots = value.workspace_roots;
  return {
    host, toolName, input, cwd: absolute(value.cwd),
    workspaceRoot: Array.isArray(roots) ? absolute(roots[0]) : null,
    agentType: typeof value.agent_type === 'string' && value.agent_type !== '' ? value.agent_type : null,
  };
}
