// `roo-modes-server validate [FILE ...]`: checks mode files and prints file:line:column problems;
// exit code 1 when any were found. Reads files only; never writes or changes anything.
import { resolve } from 'node:path';
import { readModeLayer, resolveModeFiles } from '../modes/catalogue.js';
import { formatIssue, modeSources, SOURCE_OPTIONS, type CliIo } from './modes.js';
import { readCommand, type Command } from './options.js';

const COMMAND: Command<typeof SOURCE_OPTIONS> = {
  name: 'validate',
  usage: ['[--project-root DIR] [--config-dir DIR] [--global-modes-file FILE] [FILE ...]'],
  about: `Checks mode files (.roomodes, .kilocodemodes, custom_modes.yaml, mode sets) by Roo Code's rules and
prints each problem as file:line:column: message. Without FILE it checks every source file that
exists (see the precedence table in docs/modes.md), Roo Code's own global file in an editor's storage
included when the config dir has none.
Exits 1 when a problem was found, 0 otherwise.`,
  options: SOURCE_OPTIONS,
  operands: true,
};

export async function runValidate(argv: string[], io: CliIo): Promise<number> {
  const args = readCommand(COMMAND, argv, io);
  if (typeof args === 'number') return args;
  let targets: { file: string; jsonFallback: boolean; explicit: boolean }[];
  if (args.operands.length > 0) {
    targets = args.operands.map((f) => ({ file: resolve(f), jsonFallback: true, explicit: true }));
  } else {
    const found = await resolveModeFiles({ ...modeSources(args, io.env), env: io.env });
    targets = found.layers.map((l) => ({ file: l.file, jsonFallback: l.jsonFallback, explicit: false }));
    for (const note of found.notices) io.out(`${formatIssue(note)} (note)\n`);
  }
  let problems = 0;
  let checked = 0;
  for (const t of targets) {
    const layer = await readModeLayer(t.file, 'project', t.jsonFallback);
    if (!layer.read && layer.issues.length === 0) {
      if (t.explicit) {
        io.out(`${t.file}:1: the file does not exist\n`);
        problems++;
      }
      continue;
    }
    checked++;
    for (const issue of layer.issues) io.out(`${formatIssue(issue)}\n`);
    for (const note of layer.notices) io.out(`${formatIssue(note)} (note)\n`);
    for (const warning of layer.warnings) io.out(`${formatIssue(warning)} (warning)\n`);
    problems += layer.issues.length;
    if (layer.issues.length === 0) io.out(`${t.file}: ok, ${layer.modes.length} mode${layer.modes.length === 1 ? '' : 's'}\n`);
  }
  if (targets.length === 0 || (checked === 0 && problems === 0)) io.out('No mode files found.\n');
  else io.err(`${problems} problem${problems === 1 ? '' : 's'} in ${checked} file${checked === 1 ? '' : 's'} checked.\n`);
  return problems > 0 ? 1 : 0;
}
