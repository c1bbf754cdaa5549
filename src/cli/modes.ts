// `roo-modes-server modes`: lists the modes in force (table or --json) with the problems found.
// Writes only through the io it is given; never touches process.stdout or exits the process.
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { TOOL_GROUP_NAMES, type GroupEntry, type Mode } from '../modes/types.js';
import { loadCatalogue, type Catalogue } from '../modes/catalogue.js';
import type { MatrixPlace } from '../app/matrix.js';
import { formatIssue } from '../modes/problems.js';
import { describeToolGroups } from '../modes/describe.js';
import { displayWidth, padToWidth } from './display-width.js';
import { cliMessage, expandHome, readCommand, type Command, type Option } from './options.js';
import { cliProjectRoot } from './project-root.js';

export interface CliIo { out(text: string): void; err(text: string): void; env: NodeJS.ProcessEnv }

/** Where the modes come from: modes, validate, export-mode and import-mode take these options. */
export const SOURCE_OPTIONS = [
  { name: '--project-root', kind: 'path', value: 'DIR', help: 'the project (default: $ROO_PROJECT_ROOT, else the nearest folder up from here holding .roomodes, .roo/ or .git, else the current directory)' },
  { name: '--config-dir', kind: 'path', value: 'DIR', help: 'the global config dir (default: $ROO_CONFIG_DIR or ~/.roo-code)' },
  { name: '--global-modes-file', kind: 'path', value: 'FILE', help: "use this global modes file instead of the config dir's" },
] as const satisfies readonly Option[];

export interface ModeSources { projectRoot: string; configDir: string; globalModesFile: string | null }

/** The folders and file the source options name, each absolute, the environment (then the walk up from here) filling what is not given. */
export function modeSources(v: { projectRoot?: string | undefined; configDir?: string | undefined; globalModesFile?: string | undefined }, io: Pick<CliIo, 'env' | 'err'>): ModeSources {
  const env = io.env;
  const pick = (given: string | undefined, envName: string, fallback: string): string => resolve(expandHome(given ?? (env[envName] || fallback), env));
  return {
    projectRoot: cliProjectRoot(v.projectRoot, io),
    configDir: pick(v.configDir, 'ROO_CONFIG_DIR', '~/.roo-code'),
    globalModesFile: v.globalModesFile === undefined ? null : resolve(v.globalModesFile),
  };
}

/** `file:line:column: message`, the form editors and CI annotate (one formatter for the CLI and the log). */
export { formatIssue };

const groupLabel = (g: GroupEntry): string =>
  typeof g === 'string' ? g : g[1].fileRegex !== undefined ? `${g[0]}(${g[1].fileRegex})` : g[0];

const OPTIONS = [
  { name: '--json', kind: 'switch', help: 'print {"modes": [...], "errors": [...], "warnings": [...], "global_modes_file": ...} instead of a table' },
  { name: '--matrix', kind: 'switch', help: 'print the modes × tool groups grid, with each file pattern' },
  { name: '--html', kind: 'path', value: 'FILE', help: 'write the modes view (the MCP Apps page list_modes shows in hosts that render it) to FILE, with the modes inside: a page any browser opens' },
  ...SOURCE_OPTIONS,
] as const satisfies readonly Option[];

const COMMAND: Command<typeof OPTIONS> = {
  name: 'modes',
  usage: ['[--json | --matrix | --html FILE] [--project-root DIR] [--config-dir DIR] [--global-modes-file FILE]'],
  about: `Lists the modes in force and the file each came from: project (.roomodes or the active mode
set, then .kilocodemodes), global (modes.yaml or custom_modes.yaml in the config dir, else Roo
Code's own in an editor's storage; then Kilo Code's global files) and built-in, with any problems
found in those files.`,
  options: OPTIONS,
  check: (v) => ([v.json, v.matrix, v.html !== undefined].filter(Boolean).length > 1 ? '--json, --matrix and --html exclude each other' : null),
};

/** One row per mode, one column per group: ✓, · (not allowed), or the edit group's file pattern. */
function matrixRows(modes: readonly Mode[]): string[][] {
  const head = ['MODE', ...TOOL_GROUP_NAMES.map((g) => g.toUpperCase())];
  return [head, ...modes.map((m) => [m.slug, ...describeToolGroups(m).map((g) => {
    if (!g.enabled) return '·';
    if (g.fileRegex !== undefined) return g.fileRegex;
    return g.mcpTools !== undefined ? g.mcpTools.join(',') : '✓';
  })])];
}

/** Columns padded by display width, so a name with an emoji (two columns) does not shift the rest. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => displayWidth(r[c]!))));
  return rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : padToWidth(cell, widths[c]!))).join('  ').trimEnd()).join('\n');
}

export async function runModes(argv: string[], io: CliIo): Promise<number> {
  const args = readCommand(COMMAND, argv, io);
  if (typeof args === 'number') return args;
  const sources = modeSources(args, io);
  const cat = await loadCatalogue({ ...sources, homeDir: io.env.HOME || homedir(), env: io.env });
  const globalLine = `Global modes file: ${cat.globalFile ?? 'none found'}\n`;
  if (args.html !== undefined) return writeHtml(resolve(args.html), cat, { projectRoot: sources.projectRoot, homeDir: io.env.HOME || homedir() }, io);
  if (args.json) {
    const modes = cat.modes.map((m) => ({
      slug: m.slug, name: m.name, source: m.source, ...(m.file !== undefined ? { file: m.file } : {}),
      roleDefinition: m.roleDefinition,
      ...(m.whenToUse !== undefined ? { whenToUse: m.whenToUse } : {}),
      ...(m.description !== undefined ? { description: m.description } : {}),
      ...(m.customInstructions !== undefined ? { customInstructions: m.customInstructions } : {}),
      groups: m.groups,
      ...(m.allowedMcpServers !== undefined ? { allowedMcpServers: m.allowedMcpServers } : {}),
      ...(m.iconName !== undefined ? { iconName: m.iconName } : {}),
    }));
    const errors = cat.issues.map((i) => ({
      file: i.file, line: i.line ?? 1, ...(i.column !== undefined ? { column: i.column } : {}),
      ...(i.slug !== undefined ? { slug: i.slug } : {}), message: i.message,
    }));
    const warnings = cat.warnings.map((w) => ({ file: w.file, line: w.line ?? 1, message: w.message }));
    io.out(`${JSON.stringify({ modes, errors, warnings, global_modes_file: cat.globalFile }, null, 2)}\n`);
    return 0;
  }
  const rows = args.matrix ? matrixRows(cat.modes) : [['SLUG', 'NAME', 'SOURCE', 'GROUPS', 'FILE'], ...cat.modes.map((m) => [
    m.slug, m.name, m.source, m.groups.map(groupLabel).join(', ') || '(none)', m.file ?? '(built-in)',
  ])];
  io.out(`${table(rows)}\n\n${globalLine}`);
  if (cat.issues.length > 0) {
    io.err(`\n${cat.issues.length} problem${cat.issues.length === 1 ? '' : 's'} in the mode files:\n${cat.issues.map(formatIssue).join('\n')}\n`);
  }
  return 0;
}

/** `--html FILE`: the built view page with the catalogue inside; the problems go to stderr as well. */
async function writeHtml(file: string, cat: Catalogue, place: MatrixPlace, io: CliIo): Promise<number> {
  const [{ buildViewData }, { readViewPage, staticPage }, { writeFileAtomic }] = await Promise.all([
    import('../app/matrix.js'), import('../app/page.js'), import('../files/atomic-write.js'),
  ]);
  const data = buildViewData(cat, place);
  try {
    await writeFileAtomic(file, staticPage(await readViewPage(), data));
  } catch (err) {
    io.err(`${cliMessage('modes', (err as Error).message)}\n`);
    return 1;
  }
  io.out(`Wrote the modes view of ${data.modes.length} mode${data.modes.length === 1 ? '' : 's'} to ${file}\n`);
  if (cat.issues.length > 0) io.err(`${cat.issues.length} problem${cat.issues.length === 1 ? '' : 's'} in the mode files (shown in the page):\n${cat.issues.map(formatIssue).join('\n')}\n`);
  return 0;
}
