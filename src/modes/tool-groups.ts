// The tool → group table (classic and current Roo tool names together), the aliases and the
// always-available tools. Facts only, plus lookups over them; it never decides what a mode may do.
import { TOOL_GROUP_NAMES, type GroupName } from './types.js';

/**
 * Which group each Roo tool belongs to. It is the union of the browser-era ("classic") names and
 * the current ones, so mode files written for any Roo release keep their meaning.
 */
export const TOOL_GROUPS: Readonly<Record<GroupName, readonly string[]>> = {
  read: ['read_file', 'fetch_instructions', 'search_files', 'list_files', 'list_code_definition_names', 'codebase_search'],
  edit: [
    'apply_diff', 'write_to_file', 'insert_content', 'search_and_replace', 'generate_image',
    'edit', 'search_replace', 'edit_file', 'apply_patch', 'append_to_file',
  ],
  browser: ['browser_action'],
  command: ['execute_command', 'read_command_output'],
  mcp: ['use_mcp_tool', 'access_mcp_resource'],
  modes: ['switch_mode', 'new_task'],
  web: ['fetch_web_content'],
};

/** Old or alternative names, mapped to the tool they stand for (alias → canonical). */
export const TOOL_ALIASES: Readonly<Record<string, string>> = {
  write_file: 'write_to_file',
  temp_edit_file: 'search_and_replace',
};

/** Tools every mode may use whatever its groups are. */
export const ALWAYS_AVAILABLE_TOOLS: readonly string[] = [
  'ask_followup_question', 'attempt_completion', 'switch_mode', 'new_task',
  'update_todo_list', 'run_slash_command', 'skill',
];

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** The canonical name of a tool: the alias target, or the name itself. */
export function resolveToolAlias(name: string): string {
  return hasOwn(TOOL_ALIASES, name) ? TOOL_ALIASES[name]! : name;
}

export function isAlwaysAvailable(name: string): boolean {
  return ALWAYS_AVAILABLE_TOOLS.includes(resolveToolAlias(name));
}

/** The group of a built-in tool name (aliases resolved); undefined for unknown and MCP names. */
export function groupOfTool(name: string): GroupName | undefined {
  const canonical = resolveToolAlias(name);
  return TOOL_GROUP_NAMES.find((g) => TOOL_GROUPS[g].includes(canonical));
}

export function isGroupName(value: unknown): value is GroupName {
  return typeof value === 'string' && (TOOL_GROUP_NAMES as readonly string[]).includes(value);
}
