// Protocol tests of AGENTS.md in composed prompts through the built server: Roo's position (after
// the mode's rules, before the generic ones), the AGENT.md fallback, the setting, confinement,
// the size bound, and edits reaching subscribers as updated resources.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tempDir, type ServerProcess } from './harness.js';

type Ctx = Parameters<typeof startServer>[0];

function project(t: Ctx, files: Record<string, string>): string {
  const root = tempDir(t, 'rms-agents-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

async function serve(t: Ctx, root: string, extraArgs: string[] = []): Promise<ServerProcess> {
  const s = startServer(t, { args: ['--project-root', root, ...extraArgs] });
  await s.initialize('2025-06-18');
  return s;
}

async function prompt(s: ServerProcess, id: string | number, slug = 'code'): Promise<string> {
  const res = await s.call(id, 'resources/read', { uri: `mode://${slug}/system_prompt` });
  return res.result.contents[0].text as string;
}

test('AGENTS.md and AGENTS.local.md come after the mode rules and before the generic rules', async (t) => {
  const root = project(t, {
    '.roo/rules-code/mode.md': 'MODE-RULE-TEXT',
    '.roo/rules/generic.md': 'GENERIC-RULE-TEXT',
    'AGENTS.md': 'AGENTS-MAIN-TEXT\n',
    'AGENT.md': 'AGENT-SINGULAR-TEXT',
    'AGENTS.local.md': 'AGENTS-LOCAL-TEXT',
  });
  const s = await serve(t, root);
  const text = await prompt(s, 1);
  const at = (needle: string): number => text.indexOf(needle);
  assert.ok(at('MODE-RULE-TEXT') > 0, 'mode rule present');
  assert.ok(at('MODE-RULE-TEXT') < at('AGENTS-MAIN-TEXT'), 'mode rules before AGENTS.md');
  assert.ok(at('AGENTS-MAIN-TEXT') < at('AGENTS-LOCAL-TEXT'), 'AGENTS.md before AGENTS.local.md');
  assert.ok(at('AGENTS-LOCAL-TEXT') < at('GENERIC-RULE-TEXT'), 'agent rules before the generic rules');
  assert.equal(at('AGENT-SINGULAR-TEXT'), -1, 'AGENT.md is read only when AGENTS.md is missing or empty');
  assert.match(text, /# Rules file: AGENTS\.md\nAGENTS-MAIN-TEXT/);
  assert.match(text, /then the project's agent rules \(AGENTS\.md\)/);
  // The prompt tools compose the same text.
  const viaPrompt = await s.call(2, 'prompts/get', { name: 'code' });
  assert.match(JSON.stringify(viaPrompt.result), /AGENTS-MAIN-TEXT/);
});

test('an empty AGENTS.md falls back to AGENT.md', async (t) => {
  const root = project(t, { 'AGENTS.md': '  \n', 'AGENT.md': 'AGENT-SINGULAR-TEXT' });
  const s = await serve(t, root);
  assert.match(await prompt(s, 1), /# Rules file: AGENT\.md\nAGENT-SINGULAR-TEXT/);
});

test('use_agent_rules: false leaves the agent rules out', async (t) => {
  const root = project(t, { 'AGENTS.md': 'AGENTS-MAIN-TEXT', 'config.json': JSON.stringify({ prompts: { use_agent_rules: false } }) });
  const s = await serve(t, root, ['--config', join(root, 'config.json')]);
  assert.doesNotMatch(await prompt(s, 1), /AGENTS-MAIN-TEXT/);
});

test('an AGENTS.md linking outside the project is not read; a large one is cut at the bound', async (t) => {
  const outside = project(t, { 'secret.md': 'OUTSIDE-SECRET' });
  const root = project(t, { 'AGENTS.local.md': `${'x'.repeat(200 * 1024)}END-OF-LOCAL` });
  symlinkSync(join(outside, 'secret.md'), join(root, 'AGENTS.md'));
  const s = await serve(t, root);
  const text = await prompt(s, 1);
  assert.doesNotMatch(text, /OUTSIDE-SECRET/);
  assert.doesNotMatch(text, /END-OF-LOCAL/);
  assert.match(text, /AGENTS\.local\.md was cut short/);
});

test('editing AGENTS.md sends resources/updated for subscribed system prompts, and the next read shows the edit', async (t) => {
  const root = project(t, { 'AGENTS.md': 'FIRST-VERSION' });
  const s = await serve(t, root);
  assert.match(await prompt(s, 1), /FIRST-VERSION/);
  await s.call(2, 'resources/subscribe', { uri: 'mode://code/system_prompt' });
  await s.call(3, 'prompts/list'); // the watchers are in place once the catalogue has answered
  const from = s.messages.length;
  writeFileSync(join(root, 'AGENTS.md'), 'SECOND-VERSION');
  await s.waitFor((m) => m.method === 'notifications/resources/updated' && (m as { params?: { uri?: string } }).params?.uri === 'mode://code/system_prompt'
    && s.messages.indexOf(m) >= from, 8000, 'resources/updated after the AGENTS.md edit');
  assert.match(await prompt(s, 4), /SECOND-VERSION/);
  s.assertStdoutPure();
});
