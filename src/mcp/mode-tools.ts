// The seven mode tools of the seed API. Each handler looks modes up in the current catalogue and
// tasks up in the session store; it returns a report and a metadata object, or throws a typed error.
import { FileRestrictionError, ToolRestrictionError } from '../rpc/errors.js';
import type { Catalogue } from '../modes/catalogue.js';
import { formatIssue, modeNotFound } from '../modes/problems.js';
import type { ModeIssue } from '../modes/types.js';
import type { CompiledMode } from '../modes/permissions.js';
import { decideToolUse, takesFile } from '../modes/decide-tool-use.js';
import { describeToolGroups } from '../modes/describe.js';
import type { SessionView } from '../tasks/local-store.js';
import type { TaskSessionStore } from '../tasks/session-store.js';
import { bindTools, type ToolFamily, type ToolResult, type ToolTable } from './tool-types.js';
import { enabledGroupNames, groupLines, isoAge, modeReport, toolGroupsObject } from './reports.js';

export interface ModeToolDeps {
  catalogue(): Catalogue;
  sessions: TaskSessionStore;
  permissionContext(): { projectRoot: string | null; confineToProjectRoot: boolean };
  systemPrompt(mode: CompiledMode): Promise<string>;
  now(): number;
}

type Args = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function requireMode(cat: Catalogue, slug: string): CompiledMode {
  const mode = cat.get(slug);
  if (!mode) throw modeNotFound(cat, slug);
  return mode;
}

/** list_modes' report for one source. */
function modeList(cat: Catalogue, source: string): ToolResult {
  const modes = cat.modes.filter((m) => source === 'all' || m.source === source);
  const rows = modes.map((m) => {
    const row: Record<string, unknown> = { slug: m.slug, name: m.name, source: m.source };
    if (m.file) row.file = m.file;
    if (m.iconName !== undefined) row.icon_name = m.iconName;
    if (m.description) row.description = m.description;
    if (m.whenToUse) row.when_to_use = m.whenToUse;
    row.groups = enabledGroupNames(describeToolGroups(m));
    return row;
  });
  const lines = [`${modes.length} mode${modes.length === 1 ? '' : 's'} (source: ${source}):`];
  modes.forEach((m, i) => {
    lines.push('', `${i + 1}. ${m.name} (${m.slug}) — ${m.source}${m.file ? ` (${m.file})` : ''}`);
    const about = m.description ?? m.whenToUse;
    if (about) lines.push(`   ${about}`);
    lines.push(`   Tool groups: ${(rows[i]!.groups as string[]).join(', ') || 'none (always-available tools only)'}`);
  });
  const metadata: Record<string, unknown> = { count: modes.length, source, modes: rows };
  lines.push('', `Global modes file: ${cat.globalFile ?? 'none found'}`);
  if (cat.globalFile !== null) metadata.global_modes_file = cat.globalFile;
  // A mode missing from the list is explained here, not only in the server's log.
  const problems = problemRows(cat.issues);
  metadata.problems = problems;
  if (problems.length > 0) {
    // Not every problem skips a mode (a misplaced fileRegex loads without its restriction). Said
    // in the text itself: a CLI user or a model sees only the text, not structuredContent.
    const shown = cat.issues.slice(0, SHOWN_PROBLEMS);
    const more = problems.length - shown.length;
    lines.push('', `Problems in the mode files: ${problems.length}`, ...shown.map((i) => `- ${formatIssue(i)}`));
    lines.push(more > 0
      ? `- and ${more} more: run \`roo-modes-server validate\` in the project to see them all`
      : 'Fix them in the file named; `roo-modes-server validate` checks the files again.');
  }
  return { text: lines.join('\n'), metadata };
}

/** How many mode-file problems list_modes' text spells out (structuredContent.problems has them all). */
const SHOWN_PROBLEMS = 5;

/** The catalogue's issues as list_modes reports them. */
function problemRows(issues: readonly ModeIssue[]): { file: string; line: number; slug?: string; reason: string }[] {
  return issues.map((i) => ({ file: i.file, line: i.line ?? 1, ...(i.slug !== undefined ? { slug: i.slug } : {}), reason: i.message }));
}

function modeInfo(mode: CompiledMode, prompt?: string): ToolResult {
  const groups = describeToolGroups(mode);
  const metadata: Record<string, unknown> = { slug: mode.slug, name: mode.name, source: mode.source };
  if (mode.file) metadata.file = mode.file;
  if (mode.description) metadata.description = mode.description;
  if (mode.whenToUse) metadata.when_to_use = mode.whenToUse;
  metadata.role_definition = mode.roleDefinition;
  if (mode.customInstructions) metadata.custom_instructions = mode.customInstructions;
  metadata.tool_groups = toolGroupsObject(groups);
  if (mode.allowedMcpServers !== undefined) metadata.allowed_mcp_servers = mode.allowedMcpServers;
  if (mode.iconName !== undefined) metadata.icon_name = mode.iconName;
  if (mode.declaredSource !== undefined) metadata.declared_source = mode.declaredSource;
  if (prompt !== undefined) metadata.system_prompt = prompt;
  return { text: modeReport(mode, groups, prompt), metadata };
}

/** What the handlers are given: the deps, and the reports already built for each catalogue snapshot. */
type Deps = ModeToolDeps & { readonly reports: WeakMap<Catalogue, Map<string, ToolResult>> };

/** A report that depends only on the catalogue, built once per catalogue snapshot. */
function remember(d: Deps, key: string, build: (cat: Catalogue) => ToolResult): ToolResult {
  const cat = d.catalogue();
  let perCat = d.reports.get(cat);
  if (!perCat) { perCat = new Map(); d.reports.set(cat, perCat); }
  let result = perCat.get(key);
  if (!result) { result = { ...build(cat), reused: true }; perCat.set(key, result); }
  return result;
}

function listModes(d: Deps, args: Args): ToolResult {
  const source = str(args.source) ?? 'all';
  return remember(d, `list:${source}`, (cat) => modeList(cat, source));
}

function getModeInfo(d: Deps, args: Args): ToolResult | Promise<ToolResult> {
  const slug = args.mode_slug as string;
  if (args.include_system_prompt !== true) return remember(d, `info:${slug}`, (cat) => modeInfo(requireMode(cat, slug)));
  const mode = requireMode(d.catalogue(), slug);
  return d.systemPrompt(mode).then((prompt) => modeInfo(mode, prompt));
}

function createTask(d: Deps, args: Args): ToolResult | Promise<ToolResult> {
  const mode = requireMode(d.catalogue(), args.mode_slug as string);
  const parent = str(args.parent_session_id);
  const s = d.sessions.create({
    modeSlug: mode.slug,
    ...(str(args.initial_message) !== undefined ? { initialMessage: args.initial_message as string } : {}),
    ...(parent !== undefined ? { parentSessionId: parent } : {}),
  });
  return s instanceof Promise ? s.then((v) => createdTask(mode, parent, v)) : createdTask(mode, parent, s);
}

async function switchMode(d: Deps, args: Args): Promise<ToolResult> {
  const sessionId = args.session_id as string;
  const cat = d.catalogue();
  const mode = cat.get(args.new_mode_slug as string);
  if (!mode) {
    await d.sessions.get(sessionId); // an unknown or expired session is the first thing to report
    throw modeNotFound(cat, args.new_mode_slug as string);
  }
  // No await before the switch: it must apply in arrival order with other calls on this session.
  const reason = str(args.reason);
  const { oldMode } = await d.sessions.switchMode(sessionId, mode.slug, reason);
  const groups = describeToolGroups(mode);
  const old = d.catalogue().get(oldMode);
  const lines = [
    `Switched task from ${old ? `${old.name} (${oldMode})` : oldMode} to ${mode.name} (${mode.slug}).`,
    ...(reason ? [`Reason: ${reason}`] : []),
    '', 'Tool groups now:', ...groupLines(groups),
  ];
  const metadata: Record<string, unknown> = { session_id: sessionId, old_mode: oldMode, new_mode: mode.slug };
  if (reason) metadata.reason = reason;
  metadata.tool_groups = toolGroupsObject(groups);
  return { text: lines.join('\n'), metadata };
}

/** A task in another task's answer (its parent, children, subtasks). */
function sessionRow(v: SessionView): Record<string, unknown> {
  return { session_id: v.session_id, task_id: v.task.task_id, mode_slug: v.task.mode_slug, state: v.task.state };
}

async function getTaskInfo(d: Deps, args: Args): Promise<ToolResult> {
  const sessionId = args.session_id as string;
  const s = await d.sessions.get(sessionId);
  const t = s.task;
  const now = d.now();
  const mode = d.catalogue().get(t.mode_slug);
  const lines = [
    `Task ${t.task_id}`,
    `Session: ${s.session_id}`,
    `Mode: ${mode ? `${mode.name} (${t.mode_slug})` : `${t.mode_slug} (no longer defined)`}`,
    `State: ${t.state}`,
    `Created: ${t.created_at}${t.completed_at ? ` — finished ${t.completed_at}` : ''}`,
    `Session age: ${isoAge(s.created_at, now)}; idle: ${isoAge(s.last_accessed, now)}`,
  ];
  if (t.mode_history.length > 0) {
    lines.push('', 'Mode history:', ...t.mode_history.map((h) => `  ${h.at}: ${h.from} → ${h.to}${h.reason ? ` (${h.reason})` : ''}`));
  }
  const metadata: Record<string, unknown> = { session_id: s.session_id, created_at: s.created_at, last_accessed: s.last_accessed, task: t };
  if (args.include_messages === true) {
    lines.push('', `Messages (${t.messages.length}):`, ...t.messages.map((m) => `  [${m.timestamp}] ${m.role}: ${m.content}`));
  }
  if (args.include_hierarchy === true) {
    const h = await d.sessions.hierarchy(sessionId);
    metadata.hierarchy = { ...(h.parent ? { parent: sessionRow(h.parent) } : {}), children: h.children.map(sessionRow) };
    lines.push('', 'Hierarchy:');
    lines.push(h.parent ? `  parent: ${h.parent.task.task_id} (session ${h.parent.session_id}) — ${h.parent.task.mode_slug}, ${h.parent.task.state}` : '  parent: none');
    if (h.children.length === 0) lines.push('  children: none');
    for (const c of h.children) lines.push(`  child: ${c.task.task_id} (session ${c.session_id}) — ${c.task.mode_slug}, ${c.task.state}`);
  }
  return { text: lines.join('\n'), metadata };
}

function validateToolUse(d: Deps, args: Args): ToolResult | Promise<ToolResult> {
  // In memory the session answers at once, and then so does the whole check (no promise).
  const slug = d.sessions.modeOf(args.session_id as string);
  return typeof slug === 'string' ? judgeToolUse(d, slug, args) : slug.then((s) => judgeToolUse(d, s, args));
}

async function completeTask(d: Deps, args: Args): Promise<ToolResult> {
  const status = args.status as 'completed' | 'failed' | 'cancelled';
  const result = str(args.result);
  const out = await d.sessions.complete(args.session_id as string, status, result, args.cascade === true);
  const t = out.session.task;
  const lines = [`Task ${t.task_id} ${status} at ${t.completed_at ?? ''}.`];
  if (result) lines.push(`Result: ${result}`);
  if (out.cancelledChildren.length > 0) {
    lines.push('', `Cancelled subtasks (${out.cancelledChildren.length}):`, ...out.cancelledChildren.map((c) => `  ${c.task.task_id} (session ${c.session_id}) — ${c.task.mode_slug}`));
  }
  if (out.activeChildren.length > 0) {
    lines.push('', `Subtasks still active (${out.activeChildren.length}); pass cascade=true to cancel them:`, ...out.activeChildren.map((c) => `  ${c.task.task_id} (session ${c.session_id}) — ${c.task.mode_slug}`));
  }
  return {
    text: lines.join('\n'),
    metadata: {
      session_id: out.session.session_id, task_id: t.task_id, status, completed_at: t.completed_at ?? '',
      active_children: out.activeChildren.map(sessionRow), cancelled_children: out.cancelledChildren.map(sessionRow),
    },
  };
}

export const MODE_TOOLS = {
  list_modes: listModes,
  get_mode_info: getModeInfo,
  create_task: createTask,
  switch_mode: switchMode,
  get_task_info: getTaskInfo,
  validate_tool_use: validateToolUse,
  complete_task: completeTask,
} satisfies ToolTable<Deps>;

/** The family over one catalogue and session store, with its own report cache. */
export function modeTools(deps: ModeToolDeps): ToolFamily {
  return bindTools(MODE_TOOLS, { ...deps, reports: new WeakMap() });
}

/** validate_tool_use's `error` for each kind of refusal. */
const ERROR_NAMES = { file: 'FILE_RESTRICTION_ERROR', tool: 'TOOL_RESTRICTION_ERROR', unknown: 'UNKNOWN_TOOL' } as const;

/** validate_tool_use once the session's mode is known: the tool, then its path, decided now. */
function judgeToolUse(d: ModeToolDeps, slug: string, args: Args): ToolResult {
  const mode = requireMode(d.catalogue(), slug);
  const tool = args.tool_name as string;
  const filePath = str(args.file_path);
  const decision = decideToolUse(mode, tool, filePath === undefined ? {} : { file_path: filePath }, d.permissionContext());
  const metadata: Record<string, unknown> = { allowed: decision.allowed, tool_name: tool, mode: mode.slug };
  if (decision.group !== null) metadata.group = decision.group;
  metadata.reason = decision.reason;
  // A tool that takes no file (execute_command, an unknown name) was judged without it: not echoed.
  const shownPath = takesFile(decision) ? filePath : undefined;
  if (shownPath !== undefined) metadata.file_path = shownPath;
  if (decision.restriction) metadata.restriction = decision.restriction;
  if (decision.client) metadata.client_tool = { clients: [...decision.client.clients], group: decision.client.group };
  if (decision.error) metadata.error = ERROR_NAMES[decision.error];
  if (!decision.allowed && args.enforce === true) {
    const Err = decision.error === 'file' ? FileRestrictionError : ToolRestrictionError;
    throw new Err(decision.reason, { message: decision.reason, ...metadata });
  }
  const verdict = decision.allowed ? '✓ allowed' : '✗ not allowed';
  const text = `${verdict}: ${tool}${shownPath !== undefined ? ` on ${shownPath}` : ''} in ${mode.name} (${mode.slug})\n${decision.reason}`;
  return { text, metadata };
}

/** create_task's answer for the session just made. */
function createdTask(mode: CompiledMode, parent: string | undefined, s: SessionView): ToolResult {
  const metadata: Record<string, unknown> = { session_id: s.session_id, task_id: s.task.task_id, mode_slug: s.task.mode_slug };
  if (parent !== undefined) metadata.parent_session_id = parent;
  if (s.task.parent_task_id) metadata.parent_task_id = s.task.parent_task_id;
  metadata.created_at = s.created_at;
  const lines = [
    `Created task ${s.task.task_id} in ${mode.name} (${mode.slug}).`,
    `Session: ${s.session_id}`,
    ...(s.task.parent_task_id ? [`Parent task: ${s.task.parent_task_id}`] : []),
    '', 'Tool groups:', ...groupLines(describeToolGroups(mode)),
  ];
  return { text: lines.join('\n'), metadata };
}
