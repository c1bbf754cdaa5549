// The MCP clients add-to-mcp-config knows: one table of their files, keys and dialects, and where
// those files are on each OS. Pure lookups; it never reads or writes a file.
import { homedir } from 'node:os';
import type { posix } from 'node:path';
import { JSONC, STRICT_JSON, type Dialect } from '../jsonc/read.js';

export type ClientName = 'claude' | 'claude-code' | 'vscode' | 'roo' | 'cursor';

interface Places {
  home: string;
  /** The per-user application-data folder (Electron's appData). */
  appData: string;
  project: string;
  join(...parts: string[]): string;
}

/** Each client's dialect, key and locations: one table. */
export const CLIENTS: Record<ClientName, {
  label: string;
  key: string;
  dialect: Dialect;
  stdioType: boolean;
  /** What the client substitutes with the project's folder in its project file, if anything. */
  projectVar?: string;
  project?: (p: Places) => string;
  global: (p: Places) => string;
}> = {
  claude: {
    label: 'Claude Desktop', key: 'mcpServers', dialect: STRICT_JSON, stdioType: false,
    global: (p) => p.join(p.appData, 'Claude', 'claude_desktop_config.json'),
  },
  // Claude Code: the project's .mcp.json (shared with the team), or the user's ~/.claude.json.
  'claude-code': {
    label: 'Claude Code', key: 'mcpServers', dialect: STRICT_JSON, stdioType: true,
    project: (p) => p.join(p.project, '.mcp.json'),
    global: (p) => p.join(p.home, '.claude.json'),
  },
  vscode: {
    label: 'VS Code', key: 'servers', dialect: JSONC, stdioType: true, projectVar: '${workspaceFolder}',
    project: (p) => p.join(p.project, '.vscode', 'mcp.json'),
    global: (p) => p.join(p.appData, 'Code', 'User', 'mcp.json'),
  },
  roo: {
    label: 'Roo Code', key: 'mcpServers', dialect: STRICT_JSON, stdioType: false,
    project: (p) => p.join(p.project, '.roo', 'mcp.json'),
    global: (p) => p.join(p.appData, 'Code', 'User', 'globalStorage', 'rooveterinaryinc.roo-cline', 'settings', 'mcp_settings.json'),
  },
  cursor: {
    label: 'Cursor', key: 'mcpServers', dialect: STRICT_JSON, stdioType: false,
    project: (p) => p.join(p.project, '.cursor', 'mcp.json'),
    global: (p) => p.join(p.home, '.cursor', 'mcp.json'),
  },
};

/** What a shared project file runs: the package's bin, found on the PATH of whoever opens the project. */
export const SHARED_LAUNCHER = ['roo-modes-server'];

/** The user's home folder as the client sees it on `platform`. */
export const homeOf = (platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string => (platform === 'win32' ? env.USERPROFILE : env.HOME) ?? homedir();

/**
 * How a shared file names a folder: under the project, relative to it (after the client's project
 * variable when it has one, else relative to the folder the client starts the server in: the
 * project); under home, as `~/…`; anywhere else it cannot (null).
 */
export function sharedPlaces(projectVar: string | undefined, project: string, home: string, path: typeof posix): (dir: string) => string | null {
  const under = (root: string, dir: string): string | null => {
    const rel = path.relative(root, dir);
    return rel.startsWith('..') || path.isAbsolute(rel) ? null : rel.split(path.sep).join('/');
  };
  return (dir) => {
    const inProject = under(project, dir);
    if (inProject !== null) return projectVar === undefined ? (inProject === '' ? '.' : inProject) : [projectVar, inProject].filter((p) => p !== '').join('/');
    const inHome = under(home, dir);
    return inHome === null ? null : inHome === '' ? '~' : `~/${inHome}`;
  };
}

/** The client's config file: its project file under `projectDir`, or (`global`, or no project file) its per-user one. */
export function locate(client: ClientName, global: boolean, platform: NodeJS.Platform, env: NodeJS.ProcessEnv, projectDir: string, path: typeof posix): string {
  const home = homeOf(platform, env);
  const appData =
    platform === 'win32' ? env.APPDATA ?? path.join(home, 'AppData', 'Roaming')
    : platform === 'darwin' ? path.join(home, 'Library', 'Application Support')
    : (env.XDG_CONFIG_HOME || path.join(home, '.config'));
  const places: Places = { home, appData, project: projectDir, join: (...parts) => path.join(...parts) };
  const spec = CLIENTS[client];
  return global || spec.project === undefined ? spec.global(places) : spec.project(places);
}
