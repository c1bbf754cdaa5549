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
