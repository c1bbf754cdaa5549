// The human-readable `content` text of each orchestrator_mode_* answer, built from its metadata
// object. Formatting only: it never decides anything and never reads files.

const str = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : JSON.stringify(v));
const list = (v: unknown): string => (Array.isArray(v) && v.length ? v.map(str).join(', ') : 'none');
const recs = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null) : [];

function issueLines(title: string, v: unknown): string[] {
  const items = recs(v);
  if (!items.length) return [];
  return [`${title}:`, ...items.map((i) => `  - ${i.line !== undefined ? `line ${str(i.line)}: ` : ''}${str(i.message)}`)];
}

const backupLine = (m: Record<string, unknown>, label = 'Backup'): string[] =>
  (m.backup_location ? [`${label}: ${str(m.backup_location)}`] : []);

const TEXT: Readonly<Record<string, (m: Record<string, unknown>) => string[]>> = {
  orchestrator_mode_select(m) {
    const d = (m.mode_details ?? {}) as Record<string, unknown>;
    if (m.mode_activated === '.roomodes') {
      return [m.changed ? `Mode-set selection cleared; .roomodes is in force again (was ${str(m.previous_mode)}).` : 'No mode set was selected; .roomodes is already in force.', ...backupLine(m)];
    }
    return [
      `Activated mode set ${str(m.mode_activated)} (previous: ${m.previous_mode === null ? '.roomodes' : str(m.previous_mode)}).`,
      ...(m.copied_from_template ? [`Copied from template ${str(m.copied_from_template)}.`] : []),
      `Modes: ${str(d.mode_count)} — template roles: ${list(d.specialist_roles)}; custom roles: ${list(d.custom_roles)}.`,
      ...(d.is_valid === false ? ['Warning: the set is not valid; its invalid modes are skipped.'] : []),
      ...backupLine(m),
    ];
  },
  orchestrator_mode_list(m) {
    const rows = recs(m.available_modes);
    const out = [`Current: ${m.current_mode === null ? (m.current_mode_missing ? 'the pointer file names no valid set; .roomodes is in force' : '.roomodes (no mode set selected)') : str(m.current_mode)}${m.current_mode_missing ? ' (missing!)' : ''}`, '', `Mode sets (${rows.length}):`];
    for (const r of rows) out.push(`  ${r.is_current ? '*' : '-'} ${str(r.filename)} [${str(r.status)}] ${str(r.specialist_count)} modes${r.description ? ` — ${str(r.description)}` : ''}${r.error ? ` (${str(r.error)})` : ''}`);
    if (!rows.length) out.push('  (none)');
    if (m.hidden_invalid_count) out.push(`  (${str(m.hidden_invalid_count)} invalid set(s) hidden; pass include_invalid: true)`);
    out.push('', 'Templates:');
    for (const t of recs(m.config_templates)) out.push(`  - ${str(t.filename)} (${str(t.source)}) [${str(t.status)}] ${str(t.specialist_count)} modes`);
    const backups = recs(m.backups);
    out.push('', `Backups (${backups.length}, newest first):`, ...backups.map((b) => `  - ${str(b.file)} (${str(b.created_at)}, ${str(b.size)} bytes)`));
    return out;
  },
  orchestrator_mode_validate(m) {
    const out = [`${str(m.mode_file)}: ${m.is_valid ? 'valid' : 'NOT valid'} (${str(m.format)})`];
    if (m.repaired) out.push('Repairs applied:', ...(m.repairs_applied as unknown[]).map((c) => `  - ${str(c)}`), ...backupLine(m, 'Backup made first'));
    else if (m.repaired === false) out.push('Nothing was repaired.');
    out.push(`Template roles: ${list(m.specialist_roles)}; custom roles: ${list(m.custom_roles)}`);
    out.push(...issueLines('Errors', m.errors), ...issueLines('Warnings', m.warnings));
    if (Array.isArray(m.repair_suggestions) && m.repair_suggestions.length) out.push('Repairable with repair_if_possible: true:', ...m.repair_suggestions.map((s) => `  - ${str(s)}`));
    return out;
  },
  orchestrator_mode_create(m) {
    return [
      `Created ${str(m.file_path)} from ${str(m.template_source)}: ${str(m.total_roles)} roles (${str(m.specialist_role_count)} from the template, ${str(m.custom_role_count)} custom).`,
      ...(Array.isArray(m.replaced_roles) && m.replaced_roles.length ? [`Custom roles replacing template roles: ${list(m.replaced_roles)}`] : []),
      `Validation: ${str(m.validation_status)}`,
      ...issueLines('Errors', m.errors),
    ];
  },
  orchestrator_mode_backup(m) {
    return [
      `Backed up ${str(m.set_count)} mode set(s) to ${str(m.backup_location)}.`,
      ...(m.session_binding_included ? [`Active set recorded: ${m.active_mode_set === null ? '.roomodes (none)' : str(m.active_mode_set)}`] : []),
      ...(m.skipped_files ? [`Skipped (unsafe or unreadable): ${list(m.skipped_files)}`] : []),
      ...(m.pruned_backups ? [`Older backups removed: ${list(m.pruned_backups)}`] : []),
    ];
  },
  orchestrator_mode_restore(m) {
    return [
      `Restored from ${str(m.backup_file)}: ${list(m.restored_files)}${Array.isArray(m.unchanged_files) && m.unchanged_files.length ? ` (already identical: ${list(m.unchanged_files)})` : ''}.`,
      `Active set: ${m.active_mode_set === null ? '.roomodes' : str(m.active_mode_set)}${m.activated ? ' (activated)' : m.session_binding_restored ? ' (binding restored)' : ''}.`,
      ...(m.safety_backup_location ? [`The overwritten state was backed up first: ${str(m.safety_backup_location)}`] : []),
    ];
  },
};

export function modesetText(tool: string, metadata: Record<string, unknown>): string {
  const f = TEXT[tool];
  return f ? f(metadata).join('\n') : JSON.stringify(metadata, null, 2);
}
