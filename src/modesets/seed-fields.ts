// The seed API's names for mode-set results (seed 003), derived from our own fields so both
// vocabularies say the same thing: one table. Pure mapping; never reads or writes a file.

type Out = Record<string, unknown>;

/** What the server falls back to when an active mode set cannot be used (catalogue.ts). */
export const FALLBACK_MODE = '.roomodes';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The seed's backup_created (the backup's file name) and backup_path, only when one was written. */
function backupFields(file: unknown, location: unknown): Out {
  const name = str(file);
  const path = str(location);
  return name === null ? {} : { backup_created: name, ...(path !== null ? { backup_path: path } : {}) };
}

/** The seed writes sizes for people ("2.4KB"); backup_bytes keeps the exact figure. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

/** Tool → the seed fields it adds, computed from the result it already has. */
const SEED_FIELDS: Record<string, (o: Out) => Out> = {
  orchestrator_mode_select: (o) => ({ ...backupFields(o.backup_file, o.backup_location), fallback_mode: FALLBACK_MODE }),
  orchestrator_mode_list: () => ({}),
  orchestrator_mode_validate: (o) => ({
    validation_status: o.is_valid === true ? 'valid' : 'invalid', fallback_mode: FALLBACK_MODE,
    ...backupFields(o.backup_file, o.backup_location),
  }),
  orchestrator_mode_create: (o) => ({ mode_created: o.mode_file }),
  orchestrator_mode_backup: (o) => ({
    ...backupFields(o.backup_file, o.backup_location),
    ...(typeof o.backup_bytes === 'number' ? { backup_size: humanSize(o.backup_bytes) } : {}),
  }),
  orchestrator_mode_restore: (o) => ({
    backup_source: o.backup_file, ...backupFields(o.safety_backup_file, o.safety_backup_location),
  }),
};

/** Our result with `success` and the tool's seed fields added (ours win where a name is shared). */
export function withSeedFields(tool: string, out: Out): Out {
  return { success: true, ...(SEED_FIELDS[tool]?.(out) ?? {}), ...out };
}

/**
 * A failed mode-set call: the seed names the set that stays in force (`fallback_mode`). Added to
 * the error's data object; the active set's name, or .roomodes when none is selected.
 */
export function withFallback(data: unknown, active: string | null): unknown {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  return { ...data, fallback_mode: active ?? FALLBACK_MODE };
}
