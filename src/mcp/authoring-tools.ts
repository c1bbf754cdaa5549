// create_mode, update_mode and delete_mode: turn the tools' snake_case arguments into mode fields,
// ask the session gate, call the authoring module and reload the catalogue. No file work in here.
import type { Catalogue } from '../modes/catalogue.js';
import type { GroupEntry, GroupName, GroupOptions } from '../modes/types.js';
import type { AuthoringContext, AuthoringResult, ModeFields, PlannedWrite } from '../authoring/authoring.js';
import type { Scope, ScopeConfig } from '../authoring/mode-writes.js';
import type { ToolCallContext, ToolResult, ToolTable } from './tool-types.js';

/** What the tools that write mode files (these and export/import) are given. */
export interface ModeFileDeps {
  catalogue(): Catalogue;
  scopeConfig(): ScopeConfig;
  /** Throws -32005/-32006 when the session's mode may not write the planned files. */
  sessionGate(sessionId: string, plan: PlannedWrite): Promise<void>;
  /** Reloads the catalogue through the path file watching uses, so clients are notified. */
  reload(): Promise<void>;
}

type Args = Record<string, unknown>;

/** The gate of a call: the session's when it names one, else every write may go ahead. */
export function gateOf(d: ModeFileDeps, args: Args): (plan: PlannedWrite) => Promise<void> {
  return (plan) => (typeof args.session_id === 'string' ? d.sessionGate(args.session_id, plan) : Promise.resolve());
}

/** The tools' group objects in Roo's form: a bare name, or [name, options] when restricted. */
function groupsOf(raw: unknown): GroupEntry[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  return raw.map((g: Record<string, unknown>): GroupEntry => {
    const options: GroupOptions = {};
    if (typeof g.file_regex === 'string') options.fileRegex = g.file_regex;
    if (typeof g.description === 'string') options.description = g.description;
    if (Array.isArray(g.mcp_tools)) options.tools = g.mcp_tools as string[];
    const name = g.group as GroupName;
    return Object.keys(options).length === 0 ? name : [name, options];
  });
}

/** Only the fields given; the argument names are the tools' snake_case. */
function fieldsOf(args: Args): ModeFields {
  const out: ModeFields = {};
  const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const set = <K extends keyof ModeFields>(key: K, value: ModeFields[K] | undefined): void => { if (value !== undefined) out[key] = value; };
  set('name', text(args.name));
  set('roleDefinition', text(args.role_definition));
  set('whenToUse', text(args.when_to_use));
  set('description', text(args.description));
  set('customInstructions', text(args.custom_instructions));
  set('groups', groupsOf(args.groups));
  set('allowedMcpServers', Array.isArray(args.allowed_mcp_servers) ? args.allowed_mcp_servers as string[] : undefined);
  set('iconName', text(args.icon_name));
  return out;
}

function report(r: AuthoringResult): ToolResult {
  const lines = [`${r.action[0]!.toUpperCase()}${r.action.slice(1)} mode "${r.slug}" in ${r.mode_file} (${r.scope}, ${r.format}).`];
  if (!r.preserved_format) lines.push('The file\'s layout could not be edited in place, so it was written out whole (its comments are gone; the backup has them).');
  if (r.backup) lines.push(`Backup of the previous file: ${r.backup}`);
  if (r.removed_rules_dir) lines.push(`Removed the rules folder ${r.removed_rules_dir}.`);
  return { text: lines.join('\n'), metadata: { ...r } };
}

/** What the authoring module needs of a call: the catalogue and scopes now, and the call's gate. */
function contextOf(d: ModeFileDeps, args: Args, ctx: ToolCallContext): AuthoringContext {
  return { signal: ctx.signal, catalogue: d.catalogue(), scopes: d.scopeConfig(), gate: gateOf(d, args) };
}

/** After a write: the catalogue reloaded, and the report (saying so when another file's mode wins). */
async function done(d: ModeFileDeps, r: AuthoringResult): Promise<ToolResult> {
  await d.reload();
  const out = report(r);
  // A file of higher precedence (or the active mode set) can hide what was just written: say so.
  const winner = d.catalogue().get(r.slug);
  if (r.action !== 'deleted' && winner?.file !== r.mode_file) {
    out.text += `\nNote: the mode "${r.slug}" in force comes from ${winner?.file ?? 'the built-in modes'}, which takes precedence over ${r.mode_file}.`;
  }
  return out;
}

const load = () => import('../authoring/authoring.js');

async function createMode(d: ModeFileDeps, args: Args, ctx: ToolCallContext): Promise<ToolResult> {
  const authoring = await load();
  return done(d, await authoring.createMode(contextOf(d, args, ctx), { slug: args.slug as string, ...fieldsOf(args) }, (args.scope as Scope | undefined) ?? 'project'));
}

async function updateMode(d: ModeFileDeps, args: Args, ctx: ToolCallContext): Promise<ToolResult> {
  const authoring = await load();
  return done(d, await authoring.updateMode(contextOf(d, args, ctx), args.slug as string, fieldsOf(args), args.scope as Scope | undefined));
}

async function deleteMode(d: ModeFileDeps, args: Args, ctx: ToolCallContext): Promise<ToolResult> {
  const authoring = await load();
  return done(d, await authoring.deleteMode(contextOf(d, args, ctx), args.slug as string, args.scope as Scope | undefined, args.remove_rules === true));
}

export const AUTHORING_TOOLS = { create_mode: createMode, update_mode: updateMode, delete_mode: deleteMode } satisfies ToolTable<ModeFileDeps>;
