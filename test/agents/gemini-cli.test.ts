// Gemini CLI (`gemini -p`, pinned in agents.ts) against the mock model: a project subagent in
// `.gemini/agents` writing with write_file. Nothing is exported for Gemini yet: these are the controls.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { missingAgents, PINS } from './agents.js';
import { AGENT, INSIDE, MARKER, OUTSIDE, expectLanded, newProject, runAgent, type Project } from './rig.js';

const skip = missingAgents(['gemini-cli']);
const both = { subagent: AGENT, writes: [OUTSIDE, INSIDE] };

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

  test('a project subagent nobody acknowledged is not registered in gemini -p: the session cannot reach it', { skip }, async (t) => {
    const p = newProject(t);
    handWrittenAgent(p);
    const r = await runAgent('gemini-cli', p, { ...both, trust: false });
    assert.deepEqual(r.attempted, [], r.report());
    assert.ok(r.results.some((x) => x.includes(`Subagent '${AGENT}' not found.`)), r.report());
  });
});
