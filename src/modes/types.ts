// Shapes of modes as Roo writes them (ModeConfig) and as the server holds them (Mode).
// Pure types and the group-name table; no behaviour lives here.

/**
 * The tool groups: Roo's six in Roo's order (browser is kept: the built-ins of our API have it),
 * then Zoo Code's `web` (its fetch_web_content tool).
 */
export const TOOL_GROUP_NAMES = ['read', 'edit', 'browser', 'command', 'mcp', 'modes', 'web'] as const;
export type GroupName = (typeof TOOL_GROUP_NAMES)[number];

export interface GroupOptions {
  fileRegex?: string;
  description?: string;
  /** Only on the mcp group: allowed qualified tool names, `*` wildcards (mcp__github__*). */
  tools?: string[];
}

/** A group entry in Roo's form: a name, or [name, options]. */
export type GroupEntry = GroupName | [GroupName, GroupOptions];

export type ModeSource = 'builtin' | 'global' | 'project';

/** A mode as written in a mode file (Roo's ModeConfig, camelCase keys). */
export interface ModeConfig {
  slug: string;
  name: string;
  roleDefinition: string;
  whenToUse?: string;
  description?: string;
  customInstructions?: string;
  groups: GroupEntry[];
  /** Zoo Code: only these MCP servers' tools pass the mcp group (absent = every server). */
  allowedMcpServers?: string[];
  /** Kilo Code: a codicon name shown beside the mode (e.g. `codicon-code`); no effect on rules. */
  iconName?: string;
  /** The `source` the file itself declares (Kilo adds `organization`); where it loaded from is `Mode.source`. */
  declaredSource?: 'global' | 'project' | 'organization';
}

/** A loaded mode: where it came from, and where in that file. */
export interface Mode extends ModeConfig {
  source: ModeSource;
  /** Absolute path of the file it was loaded from (absent for built-ins). */
  file?: string;
  /** 1-based line of the mode's entry in that file, when known. */
  line?: number;
}

/** A problem found while loading or validating a mode file. */
export interface ModeIssue {
  file: string;
  line?: number;
  column?: number;
  slug?: string;
  message: string;
  /** A file that failed to load: the slugs its text seems to define, so a "not found" can say why. */
  mentions?: string[];
}
