import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinModes } from '../../src/modes/builtin.js';
import { compileMode } from '../../src/modes/permissions.js';
import { agentName } from '../../src/export/claude-code.js';
import { modeForAgent } from '../../src/hook/decide.js';

test('hook --by-agent finds each mode under the very name the Claude Code export gives its agent', () => {
  const modes = [
    ...builtinModes(),
    { slug: 'Docs-Writer', name: 'Docs', roleDefinition: 'r', groups: ['read' as const], source: 'project' as const },
    { slug: 'docs-writer2', name: 'Docs 2', roleDefinition: 'r', groups: ['read' as const], source: 'project' as const },
  ].map(compileMode);
  for (const mode of modes) assert.equal(modeForAgent(modes, agentName(mode.slug))?.slug, mode.slug, mode.slug);
  assert.equal(modeForAgent(modes, 'Explore'), undefined);
  assert.equal(modeForAgent(modes, 'general-purpose'), undefined);
});

test('claudeDenialJson writes exactly what JSON.stringify writes of claudeDenial, whatever the reason holds', async () => {
  const { claudeDenial, claudeDenialJson } = await import('../../src/hook/decide.js');
  for (const reason of ['', 'plain', 'quotes " and \\ backslash', 'lines\nand\ttabs\r', '\u0000\u001f control', 'mode \u{1F3D7}\uFE0F Architect \u2028 \u2029', 'lone \uD800 surrogate', '}}"]']) {
    assert.equal(claudeDenialJson(reason), JSON.stringify(claudeDenial(reason)), JSON.stringify(reason));
  }
});
