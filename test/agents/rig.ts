// Runs one real agent CLI headless in a temp project with a temp HOME against the scripted mock
// model, and reports its exit, output, the model's request log and which target files landed.
// It never installs anything; the agents' other network use is turned off by their own settings
// (hosts.ts), not blocked.
//
// Adding a case (a new export kind, or a new agent):
// 1. `const p = newProject(t)`; write what the case exports with `await exportModes(p, [...])`
//    (the built CLI, run in the project), or files of your own under `p.root`.
// 2. `const r = await runAgent('claude-code', p, { subagent: AGENT, writes: [OUTSIDE, INSIDE] })`.
//    `launcher: true` puts `roo-modes-server` (this build) on PATH; `hide: ['node']` keeps other
//    commands off it; `trust: false` leaves Claude Code's folder untrusted (Gemini's agents
//    unacknowledged); `env` adds variables; `asAgent` runs `--agent NAME` instead of a subagent.
//    Set-up commands of the agent itself (`claude plugin marketplace add DIR`, `claude plugin
//    install NAME@MARKET`) go through `runAgentCli(agent, p, args)`, with the session's HOME.
// 3. Assert with `expectRefused(r, OUTSIDE, /reason/)`, `expectLanded(r, INSIDE)`: both also check
//    that the agent really tried that write, so a run where nothing happened fails.
// A new agent CLI needs a pin in agents.ts and a Host in hosts.ts (its settings, env, argv, tools).
// ROO_MODES_AGENTS_KEEP=1 keeps each case's project and HOME (the agents' logs are there) to look at.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import assert from 'node:assert/strict';
import { agentEnv, runGroup, type EnvOptions, type Exit } from './agent-process.js';
import { agentCommand, HOW_TO_RUN, type AgentId } from './agents.js';
import { HOSTS } from './hosts.js';
import { MockModel, type Recorded } from './mock-model.js';
import { runCli, type CliRun } from '../protocol/cli-run.js';

/** In the mode's instructions only, so the mock knows the agent's own conversation by it. */
export const MARKER = 'rms-agent-tier-5c1e';
/** The exported agent's name (the slug, lower-cased). */
export const AGENT = 'notes-writer';
/** A mode that may read, and edit Markdown files only. */
export const ROOMODES = `customModes:
  - slug: ${AGENT}
    name: Notes Writer
    description: Writes the project's Markdown notes
    roleDefinition: You write the project's Markdown notes. ${MARKER}
    groups:
      - read
      - - edit
        - fileRegex: \\.md$
          description: Markdown files only
`;

/** One write the agent is told to make: `file` relative to the project; `as` the path it passes (default absolute). */
export interface FileWrite { file: string; content: string; as?: string }
export const OUTSIDE: FileWrite = { file: 'src/app.ts', content: 'export const written = "outside the pattern";\n' };
export const INSIDE: FileWrite = { file: 'notes.md', content: '# Notes\n\nWritten inside the pattern.\n' };

export interface Project { root: string; home: string }

const KEEP = process.env.ROO_MODES_AGENTS_KEEP === '1';
const scratch = (t: { after(fn: () => void): void }, prefix: string): string => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  if (!KEEP) t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

/** A git repository holding the fixture `.roomodes`, and a HOME of its own. */
export function newProject(t: { after(fn: () => void): void }, roomodes = ROOMODES): Project {
  const root = scratch(t, 'rms-agents-');
  const home = scratch(t, 'rms-agents-home-');
  writeFileSync(join(root, '.roomodes'), roomodes);
  mkdirSync(join(root, '.git'));
  // A minimal repository by hand (no git needed): OpenCode and Kilo take it as the worktree.
  writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  for (const d of ['objects', 'refs']) mkdirSync(join(root, '.git', d));
  return { root, home };
}

/** `roo-modes-server export ARGS` with the built CLI, in the project. */
export async function exportModes(p: Project, args: string[]): Promise<CliRun> {
  const r = await runCli(['export', ...args], { cwd: p.root, home: p.home });
  assert.equal(r.code, 0, `export ${args.join(' ')} exited with ${r.code}:\n${r.stdout}${r.stderr}`);
  return r;
}

export interface RunOptions extends EnvOptions {
  writes: FileWrite[];
  subagent?: string;
  asAgent?: string;
  trust?: boolean;
  timeoutMs?: number;
}

export interface RunResult extends Exit {
  agent: AgentId;
  log: string;
  requests: Recorded[];
  /** Every tool result the agent sent the model. */
  results: string[];
  /** The `file` of each write the model asked the agent to make. */
  attempted: string[];
  /** The file's content now, or undefined when it does not exist. */
  content(file: string): string | undefined;
  /** A digest for assertion messages. */
  report(): string;
}

/** Runs `agent` headless in the project until it exits (or the timeout kills its process group). */
export async function runAgent(agent: AgentId, p: Project, o: RunOptions): Promise<RunResult> {
  const argv0 = commandOf(agent);
  const host = HOSTS[agent];
  const pathOf = (w: FileWrite) => w.as ?? join(p.root, w.file);
  const mock = new MockModel({
    marker: MARKER,
    writes: o.writes.map((w) => ({ path: pathOf(w), content: w.content })),
    dialect: host.dialect(o.subagent),
  });
  const mockUrl = await mock.start();
  try {
    const work = mkdtempSync(join(p.home, '.rig-'));
    const hr = { root: p.root, home: p.home, mockUrl, prompt: 'Write the project notes.', asAgent: o.asAgent, trust: o.trust ?? true, logFile: join(work, 'agent.log') };
    host.prepare(hr);
    const timeoutMs = o.timeoutMs ?? 300_000;
    const exit = await runGroup([...argv0, ...host.args(hr)], p.root, agentEnv(p.home, work, host.env(hr), o), timeoutMs);
    const log = host.log(hr, exit.stderr);
    const tried = new Set(mock.attempted().map((w) => w.path));
    const attempted = o.writes.filter((w) => tried.has(pathOf(w))).map((w) => w.file);
    const results = mock.results();
    const content = (file: string): string | undefined => {
      const abs = isAbsolute(file) ? file : join(p.root, file);
      return existsSync(abs) ? readFileSync(abs, 'utf8') : undefined;
    };
    const report = () => [
      `${agent} exited with ${exit.code ?? exit.signal}${exit.timedOut ? ` (killed after ${timeoutMs} ms)` : ''}; the model was asked ${mock.requests.length} times`,
      `writes attempted: ${JSON.stringify(attempted)}`,
      `tool results: ${JSON.stringify(results.map((x) => x.slice(0, 400)))}`,
      `stdout (tail): ${exit.stdout.slice(-1500)}`,
      `stderr (tail): ${exit.stderr.slice(-1500)}`,
      `log (hook lines): ${log.split('\n').filter((l) => /hook|plugin|trust|permission|denied|block/i.test(l)).slice(-30).join('\n')}`,
    ].join('\n');
    return { agent, ...exit, log, requests: mock.requests, results, attempted, content, report };
  } finally {
    await mock.stop();
  }
}

/**
 * Runs the agent CLI with other arguments (`claude plugin install …`) in the project, with the
 * same HOME, settings and environment as a session, and no model: it must not need one.
 */
export async function runAgentCli(agent: AgentId, p: Project, args: string[], o: EnvOptions & { timeoutMs?: number } = {}): Promise<Exit> {
  const host = HOSTS[agent];
  const work = mkdtempSync(join(p.home, '.rig-'));
  // Port 9 (discard): nothing answers there, so a call to the model fails at once.
  const hr = { root: p.root, home: p.home, mockUrl: 'http://127.0.0.1:9', prompt: '', trust: true, logFile: join(work, 'agent.log') };
  host.prepare(hr);
  return runGroup([...commandOf(agent), ...args], p.root, agentEnv(p.home, work, host.env(hr), o), o.timeoutMs ?? 120_000);
}

const commandOf = (agent: AgentId): string[] => {
  const argv = agentCommand(agent);
  if (!argv) throw new Error(`${agent} is not installed: run ${HOW_TO_RUN}`);
  return argv;
};

/** The agent tried this write, and its file is absent; a tool result says why, matching `why`. */
export function expectRefused(r: RunResult, w: FileWrite, why: RegExp): void {
  assert.ok(r.attempted.includes(w.file), `the agent never tried to write ${w.file}\n${r.report()}`);
  assert.equal(r.content(w.file), undefined, `${w.file} was written\n${r.report()}`);
  assert.ok(r.results.some((x) => why.test(x)), `no tool result matches ${why}\n${r.report()}`);
}

/** The agent tried this write, and its file holds exactly the content it was given. */
export function expectLanded(r: RunResult, w: FileWrite): void {
  assert.ok(r.attempted.includes(w.file), `the agent never tried to write ${w.file}\n${r.report()}`);
  assert.equal(r.content(w.file), w.content, `${w.file} did not land as written\n${r.report()}`);
}
