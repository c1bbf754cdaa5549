// Changing which set is active and putting backups back: orchestrator_mode_select and
// orchestrator_mode_restore. Order on disk is always: safety backup, new set content, pointer last,
// then reload. It never writes outside roles/, backups/ and the pointer file.
import { ValidationError } from '../rpc/errors.js';
import { writeFileExclusive } from '../files/atomic-write.js';
import { readBackup, listBackups, writeBackup, type WrittenBackup } from './backup.js';
import { firstError, issuesOut, splitRoles } from './catalog.js';
import { checkFileName, SET_EXTENSIONS, type ModesetPaths } from './paths.js';
import { analyseSet, type SetAnalysis } from './sets.js';
import { listSets, notFound, readPointer, readSmallFile, writePointer, writePointerRaw } from './set-files.js';
import { readTemplate, templateNames } from './templates.js';
import { replaceFile } from '../authoring/turn-fence.js';

/** The special mode_file that clears the selection and puts .roomodes back in force. */
export const ROOMODES = '.roomodes';

export interface ActivationEnv { paths: ModesetPaths; now: Date; reload(): Promise<void> }

export function invalidSet(name: string, a: SetAnalysis, suggestions: string[]): ValidationError {
  const first = a.errors[0];
  return new ValidationError(`Mode set ${name} is not valid: ${firstError(a) ?? 'unknown problem'}`, {
    message: `Mode set ${name} has ${a.errors.length} error(s)`,
    error_type: 'invalid_mode_set',
    file: name,
    ...(first?.line !== undefined ? { line: first.line } : {}),
    issue: first?.message ?? 'invalid',
    errors: issuesOut(a.errors),
    recovery_suggestions: suggestions,
  });
}

async function setDetails(paths: ModesetPaths, name: string, a: SetAnalysis, path: string): Promise<Record<string, unknown>> {
  const split = await splitRoles(paths, a);
  const out: Record<string, unknown> = { file: name, path, format: a.format, is_valid: a.isValid, mode_count: a.modes.length, ...split, settings: a.settings };
  if (a.description !== undefined) out.description = a.description;
  if (a.warnings.length) out.warnings = issuesOut(a.warnings);
  return out;
}

const backupOut = (b: WrittenBackup | undefined): { backup_location: string | null; backup_file: string | null } =>
  ({ backup_location: b?.path ?? null, backup_file: b?.file ?? null });

export interface SelectOptions { modeFile: string; validateFirst: boolean; autoCopy: boolean; backupCurrent: boolean }

/** orchestrator_mode_select, run under the lock. */
export async function selectSet(env: ActivationEnv, o: SelectOptions): Promise<Record<string, unknown>> {
  const { paths } = env;
  await paths.ensureDir(paths.roles);
  // An unsafe pointer file (a link, a FIFO...) is replaced, not read: selecting is how it is repaired.
  const previous = await readPointer(paths, true);
  const present = previous.raw !== null || previous.unsafe !== undefined;
  const needBackup = o.backupCurrent && (present || (await listSets(paths)).length > 0);
  const backup = (): Promise<WrittenBackup> =>
    writeBackup(paths, { reason: 'pre-select', includeBinding: true, now: env.now, ...(previous.name && !previous.invalid ? { primary: previous.name } : {}) });

  if (o.modeFile === ROOMODES) {
    const b = present && needBackup ? await backup() : undefined;
    if (present) {
      await writePointer(paths, null);
      await env.reload();
    }
    return { mode_activated: ROOMODES, previous_mode: previous.name, changed: present, ...backupOut(b), mode_details: { file: ROOMODES, source: 'roomodes' } };
  }

  checkFileName('mode_file', o.modeFile, SET_EXTENSIONS);
  const at = await paths.inside(paths.roles, o.modeFile, 'mode_file');
  let text: string;
  let copiedFrom: string | null = null;
  if (at.exists) {
    text = (await readSmallFile(at.path, o.modeFile)).text;
  } else {
    const template = o.autoCopy ? await readTemplate(paths, o.modeFile) : undefined;
    if (!template) {
      throw notFound('mode_file', o.modeFile, 'mode set', await listSets(paths), [
        o.autoCopy ? `No template has that name either; templates: ${(await templateNames(paths)).join(', ')}` : 'Pass auto_copy_if_missing: true to copy a template of that name',
        'Create one with orchestrator_mode_create',
      ]);
    }
    text = template.text;
    copiedFrom = template.name;
  }
  const a = analyseSet(text, o.modeFile);
  if (o.validateFirst && !a.isValid) {
    throw invalidSet(o.modeFile, a, [
      `Run orchestrator_mode_validate on ${o.modeFile} with repair_if_possible: true`,
      'Fix the errors listed (file and line) and select again',
      'Pass validate_first: false to select it anyway (its invalid modes are skipped)',
    ]);
  }
  const b = needBackup ? await backup() : undefined;
  if (copiedFrom !== null && !(await writeFileExclusive(at.path, text))) {
    throw new ValidationError(`${o.modeFile} appeared while it was being copied`, {
      message: `${o.modeFile} was created by someone else meanwhile`, error_type: 'conflict', file: o.modeFile,
      recovery_suggestions: ['Select it again to use the file that is there now'],
    });
  }
  await writePointer(paths, o.modeFile);
  await env.reload();
  return {
    mode_activated: o.modeFile,
    previous_mode: previous.name,
    changed: previous.name !== o.modeFile,
    copied_from_template: copiedFrom,
    ...backupOut(b),
    mode_details: await setDetails(paths, o.modeFile, a, at.path),
  };
}

export interface RestoreOptions { backupFile: string; activate: boolean; restoreBinding: boolean }

/** orchestrator_mode_restore, run under the lock. */
export async function restoreBackup(env: ActivationEnv, o: RestoreOptions): Promise<Record<string, unknown>> {
  const { paths } = env;
  const found = await readBackup(paths, o.backupFile);
  if (!found) throw notFound('backup_file', o.backupFile, 'backup', await listBackups(paths), ['Make one with orchestrator_mode_backup']);
  const { doc } = found;
  await paths.ensureDir(paths.roles);

  // Work out everything before writing anything, so a refusal leaves the project untouched.
  const plan: { name: string; path: string; content: string; existed: boolean }[] = [];
  const unchanged: string[] = [];
  for (const f of doc.files) {
    const at = await paths.inside(paths.roles, f.name, 'mode_file');
    const current = at.exists ? (await readSmallFile(at.path, f.name)).text : null;
    if (current === f.content) unchanged.push(f.name);
    else plan.push({ name: f.name, path: at.path, content: f.content, existed: current !== null });
  }
  const before = await readPointer(paths);
  let pointerRaw: string | null | undefined;
  let activated: string | null = null;
  if (o.activate) {
    const target = doc.active_mode_set ?? doc.primary ?? (doc.files.length === 1 ? doc.files[0]?.name : undefined);
    if (target === undefined) {
      throw new ValidationError('The backup does not say which set to activate', {
        message: `${o.backupFile} records no active set and holds ${doc.files.length} sets`, error_type: 'nothing_to_activate', file: o.backupFile,
        recovery_suggestions: ['Restore without activate_after_restore, then run orchestrator_mode_select'],
      });
    }
    const content = doc.files.find((f) => f.name === target)?.content;
    const fromDisk = content ?? await (async () => {
      const at = await paths.inside(paths.roles, target, 'mode_file');
      return at.exists ? (await readSmallFile(at.path, target)).text : undefined;
    })();
    if (fromDisk === undefined) throw notFound('mode_file', target, 'mode set', await listSets(paths));
    const a = analyseSet(fromDisk, target);
    if (!a.isValid) throw invalidSet(target, a, ['Restore without activate_after_restore, repair the set, then select it']);
    pointerRaw = `${target}\n`;
    activated = target;
  } else if (o.restoreBinding && doc.session_binding_included) {
    pointerRaw = doc.active_mode_set_raw ?? null;
  }
  const pointerChanges = pointerRaw !== undefined && pointerRaw !== before.raw;

  const overwritten = plan.filter((p) => p.existed).map((p) => p.name);
  const safety = overwritten.length > 0 || (pointerChanges && before.raw !== null)
    ? await writeBackup(paths, { reason: 'pre-restore', includeBinding: true, only: overwritten, now: env.now, ...(before.name && !before.invalid ? { primary: before.name } : {}) })
    : undefined;
  for (const p of plan) await replaceFile(p.path, p.content);
  if (pointerChanges) await writePointerRaw(paths, pointerRaw ?? null);
  const after = pointerChanges ? (pointerRaw ?? '').trim() || null : before.name;
  if (pointerChanges || (after !== null && plan.some((p) => p.name === after))) await env.reload();

  return {
    backup_file: o.backupFile,
    restored_at: env.now.toISOString(),
    // The seed reports whether what was restored is usable: every set in the backup.
    validation_status: doc.files.every((f) => analyseSet(f.content, f.name).isValid) ? 'valid' : 'invalid',
    backup_created_at: doc.created_at,
    restored_files: plan.map((p) => p.name),
    unchanged_files: unchanged,
    session_binding_restored: !o.activate && o.restoreBinding && doc.session_binding_included,
    activated,
    previous_mode: before.name,
    active_mode_set: after,
    safety_backup_location: safety?.path ?? null,
    safety_backup_file: safety?.file ?? null,
  };
}
