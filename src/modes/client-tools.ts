// Other agents' tool names (Claude Code, VS Code, OpenCode/Kilo, Cursor) mapped to Roo's groups:
// one table of facts plus lookups over it. It never decides what a mode may do (permissions.ts does).
import type { GroupName } from './types.js';

/** Where a client's tool lands: one of Roo's groups, or `always` (available in every mode). */
export type ClientGroup = GroupName | 'always';

export type ClientName = 'claude-code' | 'vscode' | 'opencode' | 'cursor';

export const CLIENT_LABELS: Readonly<Record<ClientName, string>> = {
  'claude-code': 'Claude Code', vscode: 'VS Code', opencode: 'OpenCode/Kilo', cursor: 'Cursor',
};

/**
 * Each client's current tool names by the Roo group they act like (names taken from each product's
 * documentation, late 2026; Claude Code's from its tools reference). VS Code lists its tool sets
 * (`read`, `edit`, …), their `set/tool` names, the older flat names and the internal names its
 * hooks report (`create_file`, `run_in_terminal`, …); Cursor its rule-file names and the names its
 * `preToolUse` hook reports (`Shell`, `Write`, `Delete`, …). Names Roo itself uses (read_file,
 * edit_file, codebase_search, search_replace, edit, apply_patch) stay in tool-groups.ts and are left
 * out here. A tool that spawns a subagent, keeps a to-do list or plans is `always`, like Roo's
 * new_task and update_todo_list. Web tools map to `browser`, Roo's only web-facing group.
 */
export const CLIENT_TOOLS: Readonly<Record<ClientName, Readonly<Partial<Record<ClientGroup, readonly string[]>>>>> = {
  'claude-code': {
    read: ['Read', 'Glob', 'Grep', 'LSP'],
    edit: ['Edit', 'Write', 'NotebookEdit'],
    command: ['Bash', 'PowerShell', 'Monitor'],
    browser: ['WebFetch', 'WebSearch'],
    mcp: ['ListMcpResourcesTool', 'ReadMcpResourceTool', 'WaitForMcpServers'],
    always: [
      'Agent', 'TodoWrite', 'TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate', 'TaskOutput', 'TaskStop',
      'ExitPlanMode', 'EnterPlanMode', 'AskUserQuestion', 'Skill', 'ToolSearch', 'ListAgents', 'SendMessage',
    ],
  },
  vscode: {
    read: [
      'read', 'read/readFile', 'read/problems', 'read/terminalSelection', 'read/terminalLastCommand',
      'read/getNotebookSummary', 'read/readNotebookCellOutput',
      'search', 'search/codebase', 'search/fileSearch', 'search/textSearch', 'search/listDirectory',
      'search/usages', 'search/changes', 'search/searchResults',
      'codebase', 'usages', 'problems', 'changes', 'findTestFiles', 'searchResults', 'terminalSelection',
      'terminalLastCommand', 'extensions', 'vscodeAPI', 'getProjectSetupInfo',
      'vscode/extensions', 'vscode/vscodeAPI', 'vscode/getProjectSetupInfo',
      'list_dir', 'file_search', 'grep_search', 'semantic_search', 'get_errors', 'list_code_usages',
      'get_changed_files', 'test_search', 'get_search_view_results', 'get_vscode_api', 'read_notebook_cell_output',
    ],
    edit: [
      'edit', 'edit/editFiles', 'edit/createFile', 'edit/createDirectory', 'edit/editNotebook',
      'edit/createJupyterNotebook', 'editFiles', 'createFile', 'createDirectory', 'editNotebook',
      'create_file', 'create_directory', 'replace_string_in_file', 'multi_replace_string_in_file',
      'insert_edit_into_file', 'edit_notebook_file', 'create_new_jupyter_notebook',
    ],
    command: [
      'execute', 'execute/runInTerminal', 'execute/getTerminalOutput', 'execute/awaitTerminal',
      'execute/killTerminal', 'execute/runTask', 'execute/getTaskOutput', 'execute/createAndRunTask',
      'execute/runTests', 'execute/testFailure', 'execute/runNotebookCell',
      'runCommands', 'runTasks', 'runTests', 'testFailure', 'runNotebooks', 'runInTerminal', 'getTerminalOutput',
      'vscode', 'vscode/runCommand', 'vscode/installExtension', 'vscode/newWorkspace',
      'run_in_terminal', 'get_terminal_output', 'run_task', 'run_vscode_command', 'create_and_run_task',
      'get_task_output', 'run_notebook_cell', 'install_extension',
    ],
    browser: [
      'web', 'web/fetch', 'web/githubRepo', 'fetch', 'githubRepo', 'openSimpleBrowser',
      'vscode/openSimpleBrowser', 'fetch_webpage', 'open_simple_browser', 'github_repo',
    ],
    always: ['agent', 'agent/runSubagent', 'runSubagent', 'todo', 'todos', 'manage_todo_list'],
  },
  opencode: {
    read: ['read', 'glob', 'grep', 'list', 'lsp'],
    edit: ['write', 'patch', 'multiedit'],
    command: ['bash'],
    browser: ['webfetch', 'websearch', 'codesearch'],
    always: ['task', 'todowrite', 'todoread', 'question', 'skill'],
  },
  cursor: {
    read: ['list_dir', 'grep_search', 'grep', 'file_search', 'glob_file_search', 'fetch_rules', 'read_lints', 'Read', 'Grep', 'Glob'],
    edit: ['delete_file', 'edit_notebook', 'write', 'Write', 'Edit', 'Delete'],
    command: ['run_terminal_cmd', 'Shell'],
    browser: ['web_search', 'WebFetch', 'WebSearch'],
    always: ['todo_write', 'Task'],
  },
};

/**
 * Names a client used before and no longer lists: still understood on input (hooks of older
 * clients, old mode exports), never suggested. Claude Code dropped LS, NotebookRead, BashOutput and
 * KillShell, calls MultiEdit legacy, and renamed Task to Agent (2.1.63; `Task` stays an alias).
 */
export const CLIENT_LEGACY_TOOLS: Readonly<Partial<Record<ClientName, Readonly<Partial<Record<ClientGroup, readonly string[]>>>>>> = {
  'claude-code': {
    read: ['LS', 'NotebookRead'],
    edit: ['MultiEdit'],
    command: ['BashOutput', 'KillShell', 'KillBash'],
    always: ['Task', 'TodoRead', 'SlashCommand'],
  },
};

export interface ClientTool {
  group: ClientGroup;
  /** Every client that uses this name (the same name never lands in two groups). */
  readonly clients: ClientName[];
}

/** name → where it lands, derived from the tables once (pure data, never changed after). */
const INDEX: ReadonlyMap<string, ClientTool> = (() => {
  const out = new Map<string, ClientTool>();
  for (const table of [CLIENT_TOOLS, CLIENT_LEGACY_TOOLS]) {
    for (const client of Object.keys(table) as ClientName[]) {
      const byGroup = table[client] ?? {};
      for (const group of Object.keys(byGroup) as ClientGroup[]) {
        for (const name of byGroup[group] ?? []) {
          const seen = out.get(name);
          if (!seen) out.set(name, { group, clients: [client] });
          else if (!seen.clients.includes(client)) seen.clients.push(client);
        }
      }
    }
  }
  return out;
})();

/** The group a client's tool name stands for (current or legacy), or undefined when no client uses the name. */
export function clientTool(name: string): ClientTool | undefined {
  return INDEX.get(name);
}

/** "Claude Code" or "OpenCode/Kilo and VS Code": who calls a tool by this name. */
export function clientLabel(tool: ClientTool): string {
  return tool.clients.map((c) => CLIENT_LABELS[c]).join(' and ');
}

/** Edit distance between two names, ignoring case when `fold` (a typo or another agent's capitals). */
function distance(a: string, b: string, fold = true): number {
  const x = fold ? a.toLowerCase() : a;
  const y = fold ? b.toLowerCase() : b;
  let row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const next = [i];
    for (let j = 1; j <= y.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[y.length]!;
}

/**
 * The few known names closest to an unknown one, for "did you mean": every client's current names
 * plus `own` (Roo's), nearest first, only those within a third of the name's length (at least 2
 * edits) or that contain it or are contained in it ignoring case. Legacy names are never suggested.
 */
export function closestToolNames(name: string, own: readonly string[], max = 3): string[] {
  // Tool names are short; a long one is no typo of a known name, and comparing it costs time.
  if (name.length > 64) return [];
  const pool = new Set<string>(own);
  for (const client of Object.keys(CLIENT_TOOLS) as ClientName[]) for (const names of Object.values(CLIENT_TOOLS[client])) for (const n of names) pool.add(n);
  const wanted = name.toLowerCase();
  const limit = Math.max(2, Math.floor(name.length / 3));
  const scored: [string, number, number][] = [];
  for (const candidate of pool) {
    const c = candidate.toLowerCase();
    const d = distance(name, candidate);
    const contains = wanted.length >= 3 && (c.includes(wanted) || wanted.includes(c));
    // Nearest ignoring case first; between equals, the one spelt with the same capitals.
    if (d <= limit || contains) scored.push([candidate, contains ? Math.min(d, limit) : d, distance(name, candidate, false)]);
  }
  scored.sort((a, b) => a[1] - b[1] || a[2] - b[2] || a[0].localeCompare(b[0]));
  return scored.slice(0, max).map(([n]) => n);
}
