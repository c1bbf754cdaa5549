// What a mode may do, described for people and clients: the tool groups in order with their
// restrictions, and the flat list of allowed tools. Reads a mode; never decides a single call.
import { TOOL_GROUP_NAMES, type GroupName, type GroupOptions, type Mode } from './types.js';
import { TOOL_GROUPS } from './tool-groups.js';

export interface GroupDescription {
  group: GroupName;
  enabled: boolean;
  /** Only on edit: Roo enforces a file restriction there and nowhere else. */
  fileRegex?: string;
  description?: string;
  /** The tools of the group (table names, aliases left out). */
  tools: string[];
  /** Only on mcp with an allow-list: the qualified names or patterns it permits. */
  mcpTools?: string[];
  /** Only on mcp when the mode names its servers (Zoo's allowedMcpServers). */
  mcpServers?: string[];
}

function optionsOf(mode: Mode, group: GroupName): { enabled: boolean; options?: GroupOptions } {
  for (const entry of mode.groups) {
    if (entry === group) return { enabled: true };
    if (Array.isArray(entry) && entry[0] === group) return { enabled: true, options: entry[1] };
  }
  return { enabled: false };
}

/** The tool groups in order (Roo's six, then web), each with whether the mode has it and any restriction. */
export function describeToolGroups(mode: Mode): GroupDescription[] {
  return TOOL_GROUP_NAMES.map((group) => {
    const { enabled, options } = optionsOf(mode, group);
    const row: GroupDescription = { group, enabled, tools: [...TOOL_GROUPS[group]] };
    if (enabled && group === 'edit' && options?.fileRegex !== undefined) {
      row.fileRegex = options.fileRegex;
      if (options.description !== undefined) row.description = options.description;
    }
    if (enabled && group === 'mcp' && options?.tools !== undefined) row.mcpTools = [...options.tools];
    if (enabled && group === 'mcp' && mode.allowedMcpServers !== undefined) row.mcpServers = [...mode.allowedMcpServers];
    return row;
  });
}
