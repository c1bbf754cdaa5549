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
 * Each client's tool names by the Roo group they act like (names taken from each product's
 * documentation, late 2026). VS Code lists its tool sets (`read`, `edit`, …), their `set/tool`
 * names, the older flat names and the internal names its hooks report. Names Roo itself uses
 * (read_file, edit_file, codebase_search, search_replace, edit) stay in tool-groups.ts and are
 * left out here. A tool that spawns a subagent or keeps a to-do list is `always`, like Roo's
 * new_task and update_todo_list. Web tools map to `browser`, Roo's only web-facing group.
 */
export const CLIENT_TOOLS: Readonly<Record<ClientName, Readonly<Partial<Record<ClientGroup, readonly string[]>>>>> = {
  'claude-code': {
    read: ['Read', 'Glob', 'Grep', 'LSP', 'LS', 'NotebookRead'],
    edit: ['Edit', 'MultiEdit', 'Write', 'NotebookEdit'],
    command: ['Bash', 'PowerShell', 'BashOutput', 'KillShell', 'KillBash'],
    browser: ['WebFetch', 'WebSearch'],
    mcp: ['ListMcpResourcesTool', 'ReadMcpResourceTool'],
    always: ['Task', 'Agent', 'TodoWrite', 'TodoRead', 'TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate', 'ExitPlanMode', 'Skill', 'SlashCommand'],
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
      'list_dir', 'file_search', 'grep_search', 'semantic_search', 'get_errors',
    ],
    edit: [
      'edit', 'edit/editFiles', 'edit/createFile', 'edit/createDirectory', 'edit/editNotebook',
      'edit/createJupyterNotebook', 'editFiles', 'createFile', 'createDirectory', 'editNotebook',
      'create_file', 'create_directory', 'replace_string_in_file', 'multi_replace_string_in_file',
      'insert_edit_into_file', 'edit_notebook_file',
    ],
    command: [
      'execute', 'execute/runInTerminal', 'execute/getTerminalOutput', 'execute/awaitTerminal',
      'execute/killTerminal', 'execute/runTask', 'execute/getTaskOutput', 'execute/createAndRunTask',
      'execute/runTests', 'execute/testFailure', 'execute/runNotebookCell',
      'runCommands', 'runTasks', 'runTests', 'testFailure', 'runNotebooks', 'runInTerminal', 'getTerminalOutput',
      'vscode', 'vscode/runCommand', 'vscode/installExtension', 'vscode/newWorkspace',
      'run_in_terminal', 'get_terminal_output', 'run_task', 'run_vscode_command',
    ],
    browser: [
      'web', 'web/fetch', 'web/githubRepo', 'fetch', 'githubRepo', 'openSimpleBrowser',
      'vscode/openSimpleBrowser', 'fetch_webpage', 'open_simple_browser',
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
    read: ['list_dir', 'grep_search', 'grep', 'file_search', 'glob_file_search', 'fetch_rules', 'read_lints'],
    edit: ['delete_file', 'edit_notebook', 'write'],
    command: ['run_terminal_cmd'],
    browser: ['web_search'],
    always: ['todo_write'],
  },
};

export interface ClientTool {
  group: ClientGroup;
  /** Every client that uses this name (the same name never lands in two groups). */
  readonly clients: ClientName[];
}

/** name → where it lands, derived from the table once (pure data, never changed after). */
const INDEX: ReadonlyMap<string, ClientTool> = (() => {
  const out = new Map<string, ClientTool>();
  for (const client of Object.keys(CLIENT_TOOLS) as ClientName[]) {
    const byGroup = CLIENT_TOOLS[client];
    for (const group of Object.keys(byGroup) as ClientGroup[]) {
      for (const name of byGroup[group] ?? []) {
        const seen = out.get(name);
        if (seen) seen.clients.push(client);
        else out.set(name, { group, clients: [client] });
      }
    }
  }
  return out;
})();

/** The group a client's tool name stands for, or undefined when no client uses the name. */
export function clientTool(name: string): ClientTool | undefined {
  return INDEX.get(name);
}

/** "Claude Code" or "OpenCode/Kilo and VS Code": who calls a tool by this name. */
export function clientLabel(tool: ClientTool): string {
  return tool.clients.map((c) => CLIENT_LABELS[c]).join(' and ');
}

/** The known names of each client, one line each, for an unknown-tool answer. */
export function knownClientNames(): string[] {
  return (Object.keys(CLIENT_TOOLS) as ClientName[]).map((client) => {
    const names = Object.values(CLIENT_TOOLS[client]).flat();
    return `${CLIENT_LABELS[client]}: ${names.join(', ')}`;
  });
}
