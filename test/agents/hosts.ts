// How each pinned agent CLI runs headless against the mock model: its settings in the temp HOME,
// its environment (telemetry, update checks and other network off), its argv and its tool names.
// Facts about the agents only: it starts no process and never writes into the project.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentId } from './agents.js';
import type { Dialect } from './mock-model.js';

/** One run as a host sees it. */
export interface HostRun {
  root: string;
  home: string;
  mockUrl: string;
  prompt: string;
  /** `--agent NAME`: the session is that agent (Claude Code, OpenCode, Kilo). */
  asAgent?: string;
  /** Claude Code: the folder's trust dialog accepted; Gemini CLI: the project's agents acknowledged. */
  trust: boolean;
  /** A file the host may write its own log to. */
  logFile: string;
}

export interface Host {
  /** The tool names; `subagent` is the agent the main session hands the work to, if any. */
  dialect(subagent: string | undefined): Dialect;
  /** Writes the host's settings into the temp HOME (and reads the project when it must). */
  prepare(r: HostRun): void;
  env(r: HostRun): Record<string, string>;
  args(r: HostRun): string[];
  /** The host's own log after the run (a debug file, or what it printed on stderr). */
  log(r: HostRun, stderr: string): string;
}

const TASK = 'Write the project notes.';
const writeJson = (file: string, value: unknown): void => {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
};
const readLog = (file: string): string => (existsSync(file) ? readFileSync(file, 'utf8') : '');

/**
 * Claude Code: `claude -p` with the Messages API at ANTHROPIC_BASE_URL. Without a permission mode
 * `-p` refuses every Write before any hook could matter, so edits are accepted (acceptEdits); the
 * hooks still run first. Agent-file hooks run only in a folder whose trust dialog was accepted.
 */
const claudeCode: Host = {
  dialect: (subagent) => ({
    write: { tool: 'Write', args: (w) => ({ file_path: w.path, content: w.content }) },
    // Subagents run in the background by default; in the foreground the session waits for it.
    ...(subagent ? { delegate: { tool: 'Agent', args: { description: 'Write the notes', prompt: TASK, subagent_type: subagent, run_in_background: false } } } : {}),
  }),
  prepare: (r) => writeJson(join(r.home, '.claude.json'), { projects: { [r.root]: { hasTrustDialogAccepted: r.trust } } }),
  env: (r) => ({
    ANTHROPIC_BASE_URL: r.mockUrl, ANTHROPIC_API_KEY: 'sk-mock-model',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1', DISABLE_ERROR_REPORTING: '1',
  }),
  args: (r) => ['-p', r.prompt, '--permission-mode', 'acceptEdits', '--debug-file', r.logFile, ...(r.asAgent ? ['--agent', r.asAgent] : [])],
  log: (r) => readLog(r.logFile),
};

/**
 * OpenCode and Kilo (built on it): `run` with one OpenAI-compatible provider at the mock. A project
 * with a plugin folder makes them npm-install their plugin package there first (a minute online);
 * npm offline fails that at once, and a dependency-free plugin loads all the same. The model id must
 * not start with `gpt-` (that offers apply_patch instead of write and edit). The project must be a
 * git repository: elsewhere the worktree is `/` and permission globs see `tmp/…/notes.md`.
 */
function openCodeFamily(name: 'opencode' | 'kilo'): Host {
  const prefix = name === 'kilo' ? 'KILO' : 'OPENCODE';
  const off = ['DISABLE_AUTOUPDATE', 'DISABLE_MODELS_FETCH', 'DISABLE_SHARE', 'DISABLE_LSP_DOWNLOAD'];
  return {
    dialect: (subagent) => ({
      write: { tool: 'write', args: (w) => ({ filePath: w.path, content: w.content }) },
      ...(subagent ? { delegate: { tool: 'task', args: { description: 'Write the notes', prompt: TASK, subagent_type: subagent } } } : {}),
    }),
    prepare: (r) => writeJson(join(r.home, '.config', name, `${name}.json`), {
      provider: { mock: { npm: '@ai-sdk/openai-compatible', name: 'Mock model', options: { baseURL: `${r.mockUrl}/v1`, apiKey: 'mock' }, models: { 'mock-model': { name: 'Mock model', tool_call: true } } } },
      enabled_providers: ['mock'], model: 'mock/mock-model', small_model: 'mock/mock-model', autoupdate: false, share: 'disabled',
    }),
    env: () => ({
      ...Object.fromEntries(off.map((k) => [`${prefix}_${k}`, '1'])),
      npm_config_offline: 'true',
      // Kilo also reports usage, keeps a daemon, and indexes the codebase (a 20 s stall) unless told not to.
      ...(name === 'kilo' ? { KILO_TELEMETRY_LEVEL: 'off', KILO_NO_DAEMON: '1', KILO_DISABLE_CODEBASE_INDEXING: 'vscode-no-workspace', KILO_DISABLE_SESSION_INGEST: '1', KILO_DISABLE_PRESENCE: '1' } : {}),
    }),
    args: (r) => ['run', ...(r.asAgent ? ['--agent', r.asAgent] : []), '--print-logs', r.prompt],
    log: (_r, stderr) => stderr,
  };
}

/** The name in an agent file's frontmatter. */
const frontmatterName = (text: string): string | undefined => /^---\r?\n[\s\S]*?^name:\s*["']?([\w-]+)/m.exec(text)?.[1];

/**
 * Gemini CLI: `gemini -p` with the Gemini API at GOOGLE_GEMINI_BASE_URL. The auth type must come
 * from settings (that variable alone selects the "gateway" type, which `-p` refuses); headless, only
 * auto_edit or yolo offer the write tools at all. A project's `.gemini/agents` are registered only
 * once acknowledged: by the sha256 of each file, per project, in ~/.gemini/acknowledgments.
 */
const geminiCli: Host = {
  dialect: (subagent) => ({
    write: { tool: 'write_file', args: (w) => ({ file_path: w.path, content: w.content }) },
    ...(subagent ? { delegate: { tool: 'invoke_agent', args: { agent_name: subagent, prompt: TASK } } } : {}),
    finish: { tool: 'complete_task', args: { result: 'The notes are written.' } },
  }),
  prepare: (r) => {
    if (r.asAgent) throw new Error('Gemini CLI has no --agent: reach the agent as a subagent');
    writeJson(join(r.home, '.gemini', 'settings.json'), {
      security: { auth: { selectedType: 'gemini-api-key' } },
      telemetry: { enabled: false }, privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    });
    const dir = join(r.root, '.gemini', 'agents');
    const acknowledged: Record<string, string> = {};
    for (const file of existsSync(dir) && r.trust ? readdirSync(dir).filter((f) => f.endsWith('.md')) : []) {
      const text = readFileSync(join(dir, file));
      const agent = frontmatterName(text.toString('utf8'));
      if (agent) acknowledged[agent] = createHash('sha256').update(text).digest('hex');
    }
    writeJson(join(r.home, '.gemini', 'acknowledgments', 'agents.json'), { [r.root]: acknowledged });
  },
  env: (r) => ({
    GOOGLE_GEMINI_BASE_URL: r.mockUrl, GEMINI_API_KEY: 'mock-key', GEMINI_CLI_TRUST_WORKSPACE: 'true',
    // It would start itself again in a second Node with a larger heap.
    GEMINI_CLI_NO_RELAUNCH: 'true',
  }),
  // A fixed model: `auto` would first ask a router model which one to use.
  args: (r) => ['-p', r.prompt, '--approval-mode', 'auto_edit', '-m', 'gemini-2.5-flash'],
  log: (_r, stderr) => stderr,
};

export const HOSTS: Record<AgentId, Host> = {
  'claude-code': claudeCode,
  opencode: openCodeFamily('opencode'),
  kilo: openCodeFamily('kilo'),
  'gemini-cli': geminiCli,
};
