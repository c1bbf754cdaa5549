// Reads one PreToolUse event as Claude Code (and VS Code's agent hooks) send it: the tool's name,
// the files it would touch, the session's folder and agent. Pure parsing; it never decides anything.
import { isAbsolute } from 'node:path';

export class HookInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HookInputError';
  }
}

export interface ToolEvent {
  toolName: string;
  /** Every file the call names (absolute as Claude Code sends them, or relative). */
  paths: string[];
  cwd: string | null;
  /** Claude Code sets it when the call comes from a subagent (or a `--agent` session). */
  agentType: string | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The single-file fields: Claude Code's Write/Edit/MultiEdit/Read, NotebookEdit, Glob/Grep/LS, and VS Code's. */
const PATH_FIELDS = ['file_path', 'notebook_path', 'path', 'filePath', 'filepath'] as const;
/** Fields holding a list of files (VS Code's editFiles). */
const LIST_FIELDS = ['files', 'filePaths'] as const;
/** Fields holding an apply_patch text, whose `*** Add/Update/Delete File:` lines name the files. */
const PATCH_FIELDS = ['input', 'patch', 'patchText', 'patch_text'] as const;
const PATCH_LINE = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm;

function pathsOf(input: Record<string, unknown>): string[] {
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
  for (const f of PATCH_FIELDS) {
    const text = input[f];
    if (typeof text !== 'string') continue;
    for (const m of text.matchAll(PATCH_LINE)) out.push(m[1]!.trim());
  }
  return out;
}

/** Parses the event text; throws HookInputError saying what is wrong and where. */
export function parseToolEvent(text: string): ToolEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new HookInputError(`the event on stdin is not JSON (${(err as Error).message})`);
  }
  if (!isRecord(value)) throw new HookInputError('the event on stdin must be a JSON object');
  const event = value.hook_event_name;
  if (event !== undefined && event !== 'PreToolUse') {
    throw new HookInputError(`hook_event_name is ${JSON.stringify(event)}; this hook answers PreToolUse events only`);
  }
  const toolName = value.tool_name;
  if (typeof toolName !== 'string' || toolName === '') throw new HookInputError('tool_name must be a non-empty string');
  const input = value.tool_input ?? {};
  if (!isRecord(input)) throw new HookInputError('tool_input must be a JSON object');
  const cwd = typeof value.cwd === 'string' && isAbsolute(value.cwd) ? value.cwd : null;
  const agentType = typeof value.agent_type === 'string' && value.agent_type !== '' ? value.agent_type : null;
  return { toolName, paths: pathsOf(input), cwd, agentType };
}
