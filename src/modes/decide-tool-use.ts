// The single entry point for "may this mode use this tool on this file?": the tool rules
// (checkTool) and the path decision (decidePath), worded for people. It keeps nothing about the file
// system; only each (frozen, kept) tool check's answer without its pattern, made once.
import { isAbsolute, resolve } from 'node:path';
import { checkTool, type CompiledMode, type PermissionContext, type PermissionDecision, type ToolCheck } from './permissions.js';
import { decidePath } from '../paths/decide.js';
import { liveFsView } from '../paths/live-fs.js';
import type { FsView } from '../paths/resolve.js';

/** The groups whose tools act on a file; a path given to any other tool (a command, a web fetch) is not its concern. */
const FILE_GROUPS: ReadonlySet<string> = new Set(['read', 'edit']);

/** Whether a decision's tool takes a file, so a path given with it is judged (and shown in answers). */
export const takesFile = (decision: PermissionDecision): boolean => decision.group !== null && FILE_GROUPS.has(decision.group);

/**
 * A tool check's answer as callers see it, without the compiled pattern. Copying it per call
 * (`const { pattern, ...decision }`) was half of a refusal's CPU (2.2 against 1.1 µs in a loop);
 * checkTool keeps its checks frozen, so each one's copy is made once.
 */
const WITHOUT_PATTERN = new WeakMap<ToolCheck, PermissionDecision>();
function withoutPattern(tool: ToolCheck): PermissionDecision {
  let decision = WITHOUT_PATTERN.get(tool);
  if (decision === undefined) {
    const { pattern: _pattern, ...rest } = tool;
    decision = Object.isFrozen(tool) ? Object.freeze(rest) : rest;
    if (Object.isFrozen(tool)) WITHOUT_PATTERN.set(tool, decision);
  }
  return decision;
}

/**
 * resolve(root), kept for the last absolute root seen: a server judges every call against one
 * project root, and path.resolve normalises the text anew each time. A relative root depends on
 * the working folder, so it is resolved on every call.
 */
const lastRoot = { given: '', resolved: '' };
export function resolvedRoot(root: string): string {
  if (root === lastRoot.given) return lastRoot.resolved;
  const resolved = resolve(root);
  if (isAbsolute(root)) { lastRoot.resolved = resolved; lastRoot.given = root; }
  return resolved;
}

/** The path a Roo tool acts on: `path`, else `file_path`; empty means none was given. */
function pickPath(args: { path?: unknown; file_path?: unknown }): { path?: string; bad?: unknown } {
  const given = args.path;
  const v = given === undefined || given === null || given === '' ? args.file_path : given;
  if (v === undefined || v === null || v === '') return {};
  return typeof v === 'string' ? { path: v } : { bad: v };
}

/**
 * Decides a tool call the way validate_tool_use, its `enforce` form, hooks and mode authoring all
 * must: the tool first, then (when a path is given to a tool that reads or edits files) the path
 * resolved as a write would, confined to the project and matched against the mode's pattern. `fs` is the live file system unless a
 * test passes a table; a fresh live view per call means no answer outlives its call. It returns
 * the decision itself, not a promise: every file-system question it asks is a synchronous call.
 */
export function decideToolUse(
  mode: CompiledMode,
  toolName: string,
  args: { path?: unknown; file_path?: unknown },
  ctx: PermissionContext,
  fs: FsView = liveFsView(),
): PermissionDecision {
  return decideFileUse(mode, checkTool(mode, toolName), toolName, args, ctx, fs);
}

/** decideToolUse's second half, for a caller that has checked the tool already (a hook judging each file of one call). */
export function decideFileUse(
  mode: CompiledMode,
  tool: ToolCheck,
  toolName: string,
  args: { path?: unknown; file_path?: unknown },
  ctx: PermissionContext,
  fs: FsView = liveFsView(),
): PermissionDecision {
  const decision = withoutPattern(tool);
  const pattern = tool.pattern;
  if (!decision.allowed || !takesFile(decision)) return decision;
  const picked = pickPath(args);
  if (picked.bad !== undefined) {
    return { ...decision, allowed: false, error: 'file', reason: `The path given to "${toolName}" must be a string.` };
  }
  if (picked.path === undefined) {
    // An edit tool in a mode restricted to a pattern cannot be judged without its file: refused,
    // saying which files the mode may edit and that the path is needed.
    if (decision.group !== 'edit' || !decision.restriction) return decision;
    const { fileRegex, description } = decision.restriction;
    return {
      ...decision, allowed: false, error: 'file',
      reason: `Tool "${toolName}" in ${mode.name} (${mode.slug}) may edit only files matching ${fileRegex}${description ? ` (${description})` : ''}; pass file_path to check a file.`,
    };
  }
  const raw = picked.path;
  const root = resolvedRoot(ctx.projectRoot ?? process.cwd());
  const path = decidePath(raw, { root, confine: ctx.confineToProjectRoot, pattern: pattern ?? null }, fs);
  if (path.allowed) return decision;
  if (path.refusal !== 'pattern') return { ...decision, allowed: false, error: 'file', reason: `Path refused: ${path.problem}.` };
  // Roo's own wording for a pattern refusal, then what the real target was when that failed.
  const r = decision.restriction!;
  const roo = `Tool '${toolName}' in mode '${mode.name}' can only edit files matching pattern: ${r.fileRegex}${r.description ? ` (${r.description})` : ''}. Got: ${raw}`;
  const reason = path.target !== undefined ? `${roo}, which leads to ${path.target}` : path.name === raw ? roo : `${roo} (that is, ${path.name})`;
  return { ...decision, allowed: false, error: 'file', reason };
}
