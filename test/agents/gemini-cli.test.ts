// Gemini CLI (`gemini -p`, pinned in agents.ts) against the mock model: a project subagent in
// `.gemini/agents` writing with write_file; the export (--to gemini: the subagent and the policy
// rules that Gemini's own engine applies in process), and the controls without it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { missingAgents, PINS } from './agents.js';
import { AGENT, INSIDE, MARKER, OUTSIDE, expectLanded, expectRefused, exportModes, newProject, runAgent, type FileWrite, type Project } from './rig.js';

const skip = missingAgents(['gemini-cli']);
const both = { subagent: AGENT, writes: [OUTSIDE, INSIDE] };
/** The same refusal for a path given relative to the project, as models often pass it. */
const OUTSIDE_RELATIVE: FileWrite = { file: 'src/relative.ts', content: 'export const relative = true;\n', as: 'src/relative.ts' };
/** The policy's deny message for the fixture mode, as Gemini hands it to the model. */
const DENIED = /Tool execution denied by policy\. Refused: mode \\?"Notes Writer\\?" \(notes-writer\) may edit only files whose path relative to the project root matches the regular expression \S*\.md\$ \(Markdown files only\)/;

function handWrittenAgent(p: Project): void {
  mkdirSync(join(p.root, '.gemini', 'agents'), { recursive: true });
  writeFileSync(join(p.root, '.gemini', 'agents', `${AGENT}.md`), `---\nname: ${AGENT}\ndescription: Writes the project's Markdown notes\ntools: [read_file, write_file, replace]\n---\n\n${MARKER}\n`);
}

// Each case runs its own agent process; a few at a time share the machine's cores.
describe(`gemini-cli ${PINS['gemini-cli'].version}`, { concurrency: 2 }, () => {
  test('control: an acknowledged subagent without policies writes inside and outside the pattern', { skip }, async (t) => {
    const p = newProject(t);
    handWrittenAgent(p);
    const r = await runAgent('gemini-cli', p, both);
    expectLanded(r, OUTSIDE);
    expectLanded(r, INSIDE);
    assert.ok(r.results.some((x) => x.includes(`Subagent '${AGENT}' finished`)), r.report());
  });

  test('the export (--to gemini): the subagent\'s writes outside the pattern are refused by the policy, absolute or relative; the one inside lands', { skip }, async (t) => {
    const p = newProject(t);
    await exportModes(p, ['--to', 'gemini']);
    const r = await runAgent('gemini-cli', p, { subagent: AGENT, writes: [OUTSIDE, OUTSIDE_RELATIVE, INSIDE] });
    expectRefused(r, OUTSIDE, DENIED);
    expectRefused(r, OUTSIDE_RELATIVE, DENIED);
    expectLanded(r, INSIDE);
    assert.ok(r.results.some((x) => x.includes(`Subagent '${AGENT}' finished`)), r.report());
  });

  // Nothing runs that could fail to start, but the rules can be missing: the enforcement table in
  // docs/integration.md says the edit then goes through, with no word from Gemini. Held here so a
  // Gemini release that starts refusing (or warning) shows up.
  test('the export with its policy file deleted: Gemini loads no rule and says nothing, both writes land (the documented limit)', { skip }, async (t) => {
    const p = newProject(t);
    await exportModes(p, ['--to', 'gemini']);
    rmSync(join(p.root, '.gemini', 'policies', 'roo-modes.toml'));
    const r = await runAgent('gemini-cli', p, both);
    expectLanded(r, OUTSIDE);
    expectLanded(r, INSIDE);
    assert.doesNotMatch(r.stderr, /roo-modes\.toml/, r.report());
  });

  test('a project subagent nobody acknowledged is not registered in gemini -p: the session cannot reach it', { skip }, async (t) => {
    const p = newProject(t);
    handWrittenAgent(p);
    const r = await runAgent('gemini-cli', p, { ...both, trust: false });
    assert.deepEqual(r.attempted, [], r.report());
    assert.ok(r.results.some((x) => x.includes(`Subagent '${AGENT}' not found.`)), r.report());
  });
});
