// The words an export writes near the top of every file it makes, on their own so the hook (and
// the self-contained check built from it) can tell an exported agent file without loading the
// exporters. Pure text, no imports.

/** The words every file the exporter writes carries near its top; a re-export knows its own files by them. */
export const EXPORT_MARK = 'Exported by roo-modes-server';

/** True when one of the first lines carries EXPORT_MARK: a file an export wrote, which the next may replace. */
export function writtenByExport(text: string): boolean {
  return text.split('\n', 5).some((line) => line.includes(EXPORT_MARK));
}

/** The mode an exported agent file names in its mark line (`… from mode <slug> …`), or null. */
export function exportedModeOf(text: string): string | null {
  for (const line of text.split('\n', 5)) {
    if (!line.includes(EXPORT_MARK)) continue;
    const m = / from mode (\S+)/.exec(line);
    if (m) return m[1]!;
  }
  return null;
}
