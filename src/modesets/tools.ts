// The six orchestrator_mode_* tools: argument handling, the lock around every write, and the
// report text. The work itself lives in activation.ts, backup.ts, create.ts and repair.ts; this
// file never writes a file except through them and src/files/atomic-write.ts.
import type { Logger } from '../log.js';
import { bindTools, withoutNulls, type TableHandler, type ToolCallContext, type ToolFamily, type ToolResult, type ToolTable } from '../mcp/tool-types.js';
import { backupRows, pruneBackups } from './backup-list.js';
import { withFallback, withSeedFields } from './seed-fields.js';
import { isRecord } from '../rpc/jsonrpc.js';
import { RpcError, ValidationError } from '../rpc/errors.js';
import { ROOMODES, restoreBackup, selectSet } from './activation.js';
import { writeFileExclusive } from '../files/atomic-write.js';
import { writeBackup } from './backup.js';
import { describeRow, issuesOut, loadSet, splitRoles } from './catalog.js';
import { buildSet, customRolesArg } from './create.js';
import { ModesetLock } from './lock.js';
import type { SharedLeases } from '../authoring/mode-file-lease.js';
import { BACKUP_EXTENSIONS, checkBareName, checkFileName, ModesetPaths, SET_EXTENSIONS } from './paths.js';
import { repairSetText } from './repair.js';
import { analyseSet } from './sets.js';
import { listSets, notFound, readPointer, readSmallFile } from './set-files.js';
import { BUILTIN_TEMPLATE, readTemplate, templateNames } from './templates.js';
import { modesetText } from './report-text.js';
import { replaceFile } from '../authoring/turn-fence.js';

export interface ModesetDeps {
  projectRoot(): string;
  configDir: string;
  modesetsDir: string;
  /** Reloads the mode registry (and so sends list-changed notifications) after the active set changed. */
  reload(): Promise<void>;
  log: Logger;
  now?: () => Date;
  /** With a shared store, the turns at the mode sets are its leases. */
  leases?: SharedLeases | null;
}

const bool = (v: unknown, fallback: boolean): boolean => (typeof v === 'boolean' ? v : fallback);

/** Numbered progress for a call of `total` steps (sent only when the client asked with a progressToken). */
function steps(ctx: ToolCallContext, total: number): (message: string) => void {
  let done = 0;
  return (message) => { ctx.progress(++done, total, message); };
}

/** What the handlers are given: the deps, with the family's one lock and its clock. */
type Deps = ModesetDeps & { readonly lock: ModesetLock; now: () => Date };
type Args = Record<string, unknown>;

const paths = (d: Deps): ModesetPaths => new ModesetPaths(d.projectRoot(), d.modesetsDir, d.configDir);

/** Every operation that writes runs here: one at a time, in this process and across processes. */
function locked<T>(d: Deps, p: ModesetPaths, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
  return d.lock.run(p.lock, fn, signal, () => p.ensureDir(p.base));
}

// The report reads null as "none" (.roomodes, no backup); the metadata leaves such fields out.
function result(tool: string, out: Record<string, unknown>): ToolResult {
  const full = withSeedFields(tool, out);
  return { text: modesetText(tool, full), metadata: withoutNulls(full) };
}

const env = (d: Deps, p: ModesetPaths) => ({ paths: p, now: d.now(), reload: d.reload });

// Each call's own line is a debug record: the default level keeps to start-up, problems and warnings.
async function orchestratorModeSelect(d: Deps, args: Args, ctx: ToolCallContext): Promise<ToolResult> {
  const modeFile = args.mode_file as string;
  if (modeFile !== ROOMODES) checkFileName('mode_file', modeFile, SET_EXTENSIONS);
  const p = paths(d);
  const out = await locked(d, p, ctx.signal, () => selectSet(env(d, p), {
    modeFile,
    validateFirst: bool(args.validate_first, true),
    autoCopy: bool(args.auto_copy_if_missing, true),
    backupCurrent: bool(args.backup_current, true),
  }));
  d.log.debug(`mode set ${String(out.mode_activated)} selected (previous: ${String(out.previous_mode ?? ROOMODES)})`);
  return result('orchestrator_mode_select', out);
}

async function orchestratorModeList(d: Deps, args: Args): Promise<ToolResult> {
  const p = paths(d);
  const includeInvalid = bool(args.include_invalid, false);
  const details = bool(args.show_details, false);
  await p.checkDir(p.base);
  await p.checkDir(p.roles);
  const pointer = await readPointer(p);
  const names = await listSets(p);
  const rows = [];
  let hidden = 0;
  for (const name of names) {
    const row = await describeRow(p, name, async () => {
      const at = await p.inside(p.roles, name, 'mode_file');
      return readSmallFile(at.path, name);
    }, pointer.name, details);
    if (includeInvalid || row.status === 'valid' || row.is_current) rows.push(row);
    else hidden++;
  }
  const templates = [];
  for (const name of await templateNames(p, bool(args.scan_config_directory, true))) {
    const { is_current: _unused, ...row } = await describeRow(p, name, async () => (await readTemplate(p, name)) ?? { text: '' }, null, details);
    templates.push({ ...row, source: name === BUILTIN_TEMPLATE ? 'builtin' : 'config' });
  }
  const metadata: Record<string, unknown> = {
    current_mode: pointer.name,
    current_source: pointer.name === null ? 'roomodes' : 'mode_set',
    available_modes: rows,
    config_templates: templates,
    roles_directory: p.roles,
    template_directory: p.templates,
    backups: await backupRows(p),
    backup_directory: p.backups,
  };
  // An invalid pointer's content is never echoed: current_mode stays null, flagged as missing.
  if (pointer.invalid || (pointer.name !== null && !names.includes(pointer.name))) metadata.current_mode_missing = true;
  if (hidden) metadata.hidden_invalid_count = hidden;
  return result('orchestrator_mode_list', metadata);
}

async function orchestratorModeValidate(d: Deps, args: Args, ctx: ToolCallContext): Promise<ToolResult> {
  const name = checkFileName('mode_file', args.mode_file as string, SET_EXTENSIONS);
  const p = paths(d);
  const repair = bool(args.repair_if_possible, false);
  const step = steps(ctx, 2);
  const run = async (): Promise<Record<string, unknown>> => {
    let set = await loadSet(p, name);
    const before = set.analysis;
    let applied: string[] = [];
    let backup: { path: string; file: string } | undefined;
    if (repair) {
      step(`checking ${name}`);
      const outcome = repairSetText(set.text, name.toLowerCase().endsWith('.json'));
      if (outcome.text !== undefined && outcome.text !== set.text) {
        backup = await writeBackup(p, { reason: 'pre-repair', includeBinding: true, only: [name], primary: name, now: d.now() });
        await replaceFile(set.path, outcome.text);
        applied = outcome.changes;
        set = await loadSet(p, name);
        if ((await readPointer(p, true)).name === name) await d.reload(); // after the write: never fail here
        d.log.debug(`mode set ${name} repaired (${applied.length} change(s)); backup ${backup.file}`);
      }
    }
    const a = set.analysis;
    const out: Record<string, unknown> = {
      mode_file: name,
      file_path: set.path,
      format: a.format,
      is_valid: a.isValid,
      validation_details: { ...a.flags },
      ...(await splitRoles(p, a)),
      required_roles: a.requiredRoles,
      errors: issuesOut(a.errors),
      warnings: issuesOut(a.warnings),
      repair_suggestions: a.repairSuggestions,
    };
    if (repair) {
      out.repaired = applied.length > 0;
      out.repairs_applied = applied;
      out.was_valid_before_repair = before.isValid;
      out.backup_location = backup?.path ?? null;
      out.backup_file = backup?.file ?? null;
    }
    return out;
  };
  if (!repair) return result('orchestrator_mode_validate', await run());
  const out = await locked(d, p, ctx.signal, run);
  step(out.repaired === true ? 'repaired' : 'nothing to repair');
  return result('orchestrator_mode_validate', out);
}

async function orchestratorModeCreate(d: Deps, args: Args, ctx: ToolCallContext): Promise<ToolResult> {
  const raw = args.mode_name as string;
  const modeName = checkBareName('mode_name', raw.replace(/\.ya?ml$/i, ''));
  const file = `${modeName}.yaml`;
  const templateName = checkFileName('template_source', typeof args.template_source === 'string' ? args.template_source : BUILTIN_TEMPLATE, SET_EXTENSIONS);
  const settings = isRecord(args.mode_settings) ? args.mode_settings : {};
  const p = paths(d);
  const out = await locked(d, p, ctx.signal, async () => {
    const template = await readTemplate(p, templateName);
    if (!template) {
      throw notFound('template_source', templateName, 'template', await templateNames(p), [`Put the template file in ${p.templates}`]);
    }
    const built = buildSet({ modeName, templateName, templateText: template.text, customRoles: customRolesArg(args.custom_roles), settings });
    await p.ensureDir(p.roles);
    const at = await p.inside(p.roles, file, 'mode_file');
    if (at.exists || !(await writeFileExclusive(at.path, built.text))) {
      throw new ValidationError(`Mode set ${file} already exists`, {
        message: `${file} already exists in ${p.roles}; it was not changed`, error_type: 'already_exists', file,
        available: await listSets(p),
        recovery_suggestions: ['Pick another mode_name', `Back up and edit ${file} instead`],
      });
    }
    const a = analyseSet(built.text, file);
    return {
      mode_file: file,
      file_path: at.path,
      template_source: templateName,
      total_roles: a.modes.length,
      specialist_role_count: built.templateSlugs.length,
      custom_role_count: built.customSlugs.length,
      specialist_roles: built.templateSlugs,
      custom_roles: built.customSlugs,
      replaced_roles: built.replaced,
      settings: built.settings,
      validation_status: a.isValid ? 'valid' : 'invalid',
      is_valid: a.isValid,
      errors: issuesOut(a.errors),
      warnings: issuesOut(a.warnings),
    };
  });
  d.log.debug(`mode set ${file} created from ${templateName}`);
  return result('orchestrator_mode_create', out);
}

async function orchestratorModeBackup(d: Deps, args: Args, ctx: ToolCallContext): Promise<ToolResult> {
  const name = typeof args.backup_name === 'string' ? checkBareName('backup_name', args.backup_name) : undefined;
  const includeBinding = bool(args.include_session_binding, true);
  const keep = typeof args.keep === 'number' ? args.keep : undefined;
  const p = paths(d);
  const step = steps(ctx, keep === undefined ? 2 : 3);
  let pruned: string[] = [];
  const b = await locked(d, p, ctx.signal, async () => {
    step('reading the mode sets');
    const pointer = await readPointer(p);
    const written = await writeBackup(p, {
      reason: 'manual', includeBinding, now: d.now(),
      ...(name !== undefined ? { name } : {}),
      ...(pointer.name && !pointer.invalid ? { primary: pointer.name } : {}),
    });
    step(`backup ${written.file} written`);
    if (keep !== undefined) {
      pruned = await pruneBackups(p, keep, written.file);
      step(`${pruned.length} older backup(s) removed`);
    }
    return written;
  });
  const out: Record<string, unknown> = {
    backup_file: b.file,
    backup_location: b.path,
    created_at: b.doc.created_at,
    sets_backed_up: b.sets,
    set_count: b.sets.length,
    session_binding_included: includeBinding,
    backup_bytes: b.bytes,
  };
  if (keep !== undefined) out.pruned_backups = pruned;
  if (includeBinding) out.active_mode_set = b.doc.active_mode_set ?? null;
  if (b.skipped.length) out.skipped_files = b.skipped;
  d.log.debug(`mode sets backed up to ${b.file}`);
  return result('orchestrator_mode_backup', out);
}

async function orchestratorModeRestore(d: Deps, args: Args, ctx: ToolCallContext): Promise<ToolResult> {
  const backupFile = checkFileName('backup_file', args.backup_file as string, BACKUP_EXTENSIONS);
  const p = paths(d);
  const step = steps(ctx, 2);
  const out = await locked(d, p, ctx.signal, async () => {
    step(`restoring from ${backupFile}`);
    return restoreBackup(env(d, p), {
      backupFile,
      activate: bool(args.activate_after_restore, false),
      restoreBinding: bool(args.restore_session_binding, true),
    });
  });
  step('restored');
  d.log.debug(`mode sets restored from ${backupFile}`);
  return result('orchestrator_mode_restore', out);
}

export const MODESET_TOOLS = withFallbackOnError({
  orchestrator_mode_select: orchestratorModeSelect,
  orchestrator_mode_list: orchestratorModeList,
  orchestrator_mode_validate: orchestratorModeValidate,
  orchestrator_mode_create: orchestratorModeCreate,
  orchestrator_mode_backup: orchestratorModeBackup,
  orchestrator_mode_restore: orchestratorModeRestore,
});

/** The family over one project's sets, with its own lock: its writes run one at a time. */
export function modesetTools(deps: ModesetDeps): ToolFamily {
  return bindTools(MODESET_TOOLS, { ...deps, lock: new ModesetLock({ leases: deps.leases ?? null }), now: deps.now ?? (() => new Date()) });
}

/** Every failure also names the set that stays in force (the seed's fallback_mode). */
function withFallbackOnError(table: ToolTable<Deps>): ToolTable<Deps> {
  const wrapped: Record<string, TableHandler<Deps>> = {};
  for (const [name, handler] of Object.entries(table)) {
    wrapped[name] = async (d, args, ctx) => {
      try {
        return await handler(d, args, ctx);
      } catch (err) {
        if (!(err instanceof RpcError)) throw err;
        const active = await Promise.resolve().then(() => readPointer(paths(d))).then((p) => (p.invalid ? null : p.name), () => null);
        const again = new RpcError(err.code, err.message, withFallback(err.data, active));
        again.name = err.name;
        throw again;
      }
    };
  }
  return wrapped;
}
