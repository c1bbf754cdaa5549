// A project for the hook tests: a custom mode limited to docs/ (plus any extra mode lines), a home
// with no global modes, and the agents' project variables cleared so the event decides the root.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './harness.js';

export function hookProject(t: { after(fn: () => void): void }, extraModes: readonly string[] = []): { root: string; env: Record<string, string> } {
  const root = tempDir(t, 'rms-hook-');
  const home = tempDir(t, 'rms-hook-home-');
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, '.roomodes'), [
    'customModes:',
    '  - slug: docs-writer',
    '    name: Docs Writer',
    '    roleDefinition: You write documentation.',
    '    groups:',
    '      - read',
    '      - - edit',
    '        - fileRegex: ^docs/',
    '          description: the docs folder',
    ...extraModes,
    '',
  ].join('\n'));
  return { root, env: { HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code'), CLAUDE_PROJECT_DIR: '', CURSOR_PROJECT_DIR: '' } };
}
