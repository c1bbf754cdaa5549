// The seed API's names for mode-set results (seed 003), derived from our own fields so both
// vocabularies say the same thing: one table. Pure mapping; never reads or writes a file.

type Out = Record<string, unknown>;

/** What the server falls back to when an active mode set cannot be used (catalogue.ts). */
export const FALLBACK_MODE = '.roomodes';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** backup_created, and backup_path only when there is one (no nullable fields). */
function backupFields(file: unknown, location: unknown): Out {
  const path = str(location);
  return { backup_created: str(file) !== null, ...(path !== null ? { backup_path: path } : {}) };
}

/** Tool → the seed fields it adds, computed from the result it already has. */
const SEED_FIELDS: Record<string, (o: Out) => Out> = {
  orchestrator_mode_select: (o) => ({ ...backupFields(o.backup_file, o.backup_location), fallback_mode: FALLBACK_MODE }),
  orchestrator_mode_list: () => ({}),
  orchestrator_mode_validate: (o) => ({
    validation_status: o.is_valid === true ? 'valid' : 'invalid', fallback_mode: FALLBACK_MODE,
    ...(o.repaired !== undefined ? backupFields(o.backup_file, o.backup_location) : {}),
  }),
  orchestrator_mode_create: (o) => ({ mode_created: o.mode_file }),
  orchestrator_mode_backup: (o) => backupFields(o.backup_file, o.backup_location),
  orchestrator_mode_restore: (o) => backupFields(o.safety_backup_file, o.safety_backup_location),
};

/** Our result with `success` and the tool's seed fields added (ours win where a name is shared). */
export function withSeedFields(tool: string, out: Out): Out {
  return { success: true, ...(SEED_FIELDS[tool]?.(out) ?? {}), ...out };
}
