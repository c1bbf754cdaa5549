// The one table of log levels (src/log.ts) is what the built server's --help prints and what
// docs/configuration.md shows, row for row; a level outside it is refused with the list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LOG_LEVEL_TABLE, logLevelHelp } from '../../src/log.js';
import { MAIN, REPO } from './harness.js';

const run = promisify(execFile);

/** The rows of the "## Log levels" table in docs/configuration.md, as [level, text]. */
function documentedRows(): [string, string][] {
  const doc = readFileSync(join(REPO, 'docs', 'configuration.md'), 'utf8');
  // The section runs to the next heading of any level, or to the end of the file.
  const section = /^## Log levels\n([\s\S]*?)(?=^#{1,6} |(?![\s\S]))/m.exec(doc);
  assert.ok(section, 'docs/configuration.md has a "## Log levels" section');
  return [...section[1]!.matchAll(/^\| `([a-z]+)` \| (.+?) \|$/gm)].map((m) => [m[1]!, m[2]!]);
}

test('docs/configuration.md shows the log-level table exactly, in order', () => {
  assert.deepEqual(documentedRows(), LOG_LEVEL_TABLE.map((r) => [r.level, r.writes]));
});

test('--help prints the log-level table', async () => {
  const { stdout } = await run(process.execPath, [MAIN, '--help']);
  assert.ok(stdout.includes(`${logLevelHelp()}\n`), stdout);
  for (const r of LOG_LEVEL_TABLE) assert.match(stdout, new RegExp(`^ {2}${r.level} +${r.writes.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
});

test('a level outside the table exits 2 naming every level', async () => {
  const err = await run(process.execPath, [MAIN, '--log-level', 'loud']).then(() => null, (e: { code: number; stderr: string }) => e);
  assert.ok(err, 'the server refused to start');
  assert.equal(err.code, 2);
  assert.match(err.stderr, new RegExp(`is not a level \\(${LOG_LEVEL_TABLE.map((r) => r.level).join(', ')}\\)`));
});
