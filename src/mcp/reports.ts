// Human-readable reports for the mode and task tools (the `content` text). Pure formatting: no
// lookups, no state; the metadata objects are built by the tools themselves.
import type { Mode } from '../modes/types.js';
import type { GroupName } from '../modes/types.js';

/** One row of describeToolGroups (src/modes/describe.ts). */
export interface GroupSummary {
  group: GroupName; enabled: boolean; fileRegex?: string; description?: string; tools: string[]; mcpTools?: string[]; mcpServers?: string[];
}

export function groupLines(groups: readonly GroupSummary[]): string[] {
  return groups.map((g) => {
    if (!g.enabled) return `  ✗ ${g.group}`;
    let limit = g.fileRegex !== undefined ? ` — only files matching ${g.fileRegex}${g.description ? ` (${g.description})` : ''}` : '';
    if (g.mcpServers !== undefined) limit += ` — only MCP servers: ${g.mcpServers.join(', ') || 'none'}`;
    return `  ✓ ${g.group}${limit}`;
  });
}

/** One entry of `tool_groups` (get_mode_info's outputSchema says what each field means). */
export interface ToolGroupEntry {
  enabled: boolean;
  file_regex?: string;
  description?: string;
  tools?: string[];
  allowed_mcp_servers?: string[];
}

/** The `tool_groups` object: the tool groups with enabled, and the file regex where restricted. */
export function toolGroupsObject(groups: readonly GroupSummary[]): Record<string, ToolGroupEntry> {
  const out: Record<string, ToolGroupEntry> = {};
  for (const g of groups) {
    const entry: ToolGroupEntry = { enabled: g.enabled };
    if (g.fileRegex !== undefined) entry.file_regex = g.fileRegex;
    if (g.description !== undefined) entry.description = g.description;
    if (g.mcpTools !== undefined) entry.tools = g.mcpTools;
    if (g.mcpServers !== undefined) entry.allowed_mcp_servers = g.mcpServers;
    out[g.group] = entry;
  }
  return out;
}

export function enabledGroupNames(groups: readonly GroupSummary[]): string[] {
  return groups.filter((g) => g.enabled).map((g) => (g.fileRegex !== undefined ? `${g.group} (${g.fileRegex})` : g.group));
}

export function modeReport(mode: Mode, groups: readonly GroupSummary[], systemPrompt?: string): string {
  const lines = [`Mode: ${mode.name} (${mode.slug})`, `Source: ${mode.source}${mode.file ? ` — ${mode.file}` : ''}${mode.declaredSource ? ` (declares ${mode.declaredSource})` : ''}`];
  if (mode.iconName) lines.push(`Icon: ${mode.iconName}`);
  if (mode.description) lines.push(`Description: ${mode.description}`);
  if (mode.whenToUse) lines.push(`When to use: ${mode.whenToUse}`);
  lines.push('', 'Role:', mode.roleDefinition, '', 'Tool groups:', ...groupLines(groups));
  if (mode.customInstructions) lines.push('', 'Custom instructions:', mode.customInstructions);
  if (systemPrompt !== undefined) lines.push('', 'System prompt:', systemPrompt);
  return lines.join('\n');
}

export const isoAge = (fromIso: string, nowMs: number): string => {
  const seconds = Math.max(0, Math.round((nowMs - Date.parse(fromIso)) / 1000));
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
};
