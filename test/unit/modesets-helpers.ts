// Shared setup for the mode-set tool tests: a temp project and config dir, the tool family with a
// counting reload hook, and a call helper that also checks each answer against its outputSchema.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/log.js';
import type { ToolCallContext, ToolResult } from '../../src/mcp/tool-types.js';
import { modesetTools } from '../../src/modesets/tools.js';
import { RpcError } from '../../src/rpc/errors.js';
import { compileSchema } from '../../src/schema/validate.js';

export interface Project {
  root: string;
  configDir: string;
  sets: string;
  roles: string;
  backups: string;
  reloads: number;
  call(tool: string, args?: Record<string, unknown>): Promise<ToolResult>;
  cleanup(): Promise<void>;
}

const ctx: ToolCallContext = { signal: new AbortController().signal, protocolVersion: '2025-06-18', progress: () => undefined };

async function outputCheck(tool: string): Promise<(v: unknown) => unknown[]> {
  const spec = JSON.parse(await readFile(new URL(`../../schemas/tools/${tool}.json`, import.meta.url), 'utf8')) as { outputSchema: Record<string, unknown>; inputSchema: Record<string, unknown> };
  compileSchema(spec.inputSchema);
  return compileSchema(spec.outputSchema);
}

export async function makeProject(opts: { now?: () => Date } = {}): Promise<Project> {
  const top = await mkdtemp(join(tmpdir(), 'modesets-'));
  const root = join(top, 'project');
  const configDir = join(top, 'config');
  const p: Project = {
    root, configDir,
    sets: join(root, '.task_orchestrator'),
    roles: join(root, '.task_orchestrator', 'roles'),
    backups: join(root, '.task_orchestrator', 'backups'),
    reloads: 0,
    call: async () => { throw new Error('unset'); },
    cleanup: () => rm(top, { recursive: true, force: true }),
  };
  const { mkdir } = await import('node:fs/promises');
  await mkdir(root, { recursive: true });
  await mkdir(configDir, { recursive: true });
  const tools = modesetTools({
    projectRoot: () => root, configDir, modesetsDir: '.task_orchestrator', log: silentLogger,
    reload: async () => { p.reloads++; },
    ...(opts.now ? { now: opts.now } : {}),
  });
  p.call = async (tool, args = {}) => {
    const handler = tools[tool];
    assert.ok(handler, `no handler for ${tool}`);
    const result = await handler(args, ctx);
    const issues = (await outputCheck(tool))(result.metadata);
    assert.deepEqual(issues, [], `${tool} answer does not match its outputSchema`);
    assert.equal(typeof result.text, 'string');
    return result;
  };
  return p;
}

/** Runs `fn` and returns the RpcError it throws (fails the test when it does not throw one). */
export async function rpcError(fn: () => Promise<unknown>): Promise<RpcError> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof RpcError, `expected an RpcError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the call to fail');
}
