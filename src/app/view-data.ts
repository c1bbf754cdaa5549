// The data the modes view draws: shared by the server that builds it (matrix.ts) and the page that
// shows it (view/). Types only, so the browser program and the server program can both include it.

/** One tool group of one mode, as get_mode_info's tool_groups gives it. */
export interface ViewGroup {
  enabled: boolean;
  /** edit only: the files the mode may edit, and that restriction in the file's words. */
  file_regex?: string;
  description?: string;
  /** mcp only: the allowed qualified tool names or patterns, and Zoo's server list. */
  tools?: string[];
  allowed_mcp_servers?: string[];
}

export interface ViewMode {
  slug: string;
  name: string;
  source: 'builtin' | 'global' | 'project';
  /** The file it came from, relative to the project or `~/…` (absent for built-ins), and its line. */
  file?: string;
  line?: number;
  description?: string;
  groups: Record<string, ViewGroup>;
}

/** A problem in a mode file (a mode skipped, a file that did not parse), at its place. */
export interface ViewProblem {
  file: string;
  line: number;
  column?: number;
  slug?: string;
  reason: string;
}

export interface ViewData {
  /** The project's folder name (never a full path: the static page travels). */
  project: string;
  /** The group columns, in order: Roo's six, then any other group some mode has. */
  groups: string[];
  modes: ViewMode[];
  problems: ViewProblem[];
  /** The global modes file in use, shown like a mode's file. */
  global_modes_file?: string;
}

/** A verdict of try_mode_path. */
export interface ViewVerdict {
  allowed: boolean;
  mode: string;
  file_path: string;
  reason: string;
}
