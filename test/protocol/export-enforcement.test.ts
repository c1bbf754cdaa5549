// The export report's enforcement lines through the built CLI: per target, what binds and how, and
// that VS Code's and Copilot's hooks fail open; --help names the agents without a target.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDir } from './harness.js';
import { runCli } from './cli-run.js';

test('the vscode report says its hooks fail open; --help covers Codex and the Gemini target', async (t) => {
  const root = tempDir(t, 'rms-enforcement-');
  const env = { ROO_PROJECT_ROOT: root };
  const r = await runCli(['export', '--to', 'vscode', '--mode', 'architect', '--dry-run'], { env, cwd: root });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /enforcement: VS Code: the agent-scoped PreToolUse hook .* it fails open\./);
  assert.match(r.stdout, /enforcement: GitHub Copilot CLI: .*fail open/);
  const claude = await runCli(['export', '--to', 'claude-code', '--mode', 'architect', '--out', join(root, 'cc'), '--dry-run'], { env, cwd: root });
  assert.doesNotMatch(claude.stdout, /enforcement: (VS Code|Cursor|OpenCode)/, 'each target reports its own');
  const help = await runCli(['export', '--help'], { env, cwd: root });
  assert.match(help.stdout, /Codex CLI: not exported\. .*fail open/);
  assert.doesNotMatch(help.stdout, /Gemini CLI: not exported/);
  assert.match(help.stdout, /\n  gemini +\.gemini\/agents\/<slug>\.md +subagent; tools from the groups; deny rules per\n/);
});
