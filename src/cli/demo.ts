// `roo-modes-server demo`: starts this server as a child with the stdio client, walks the seed
// workflow step by step and prints a readable transcript. Writes only through io; never stdout.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectStdio, type McpClient } from '../client/client.js';
import type { JsonObject } from '../client/peer.js';
import { McpError } from '../client/errors.js';
import { isRecord as isObject } from '../rpc/jsonrpc.js';
import { cliMessage, readCommand, type Command, type Option } from './options.js';

export interface DemoIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** The argv that starts this very server. */
  selfCommand: string[];
}

const OPTIONS = [
  { name: '--timeout', kind: 'number', value: 'MS', min: 1, what: 'a positive number of milliseconds', default: 30_000,
    help: 'limit for starting the server and for each call' },
] as const satisfies readonly Option[];

const COMMAND: Command<typeof OPTIONS> = {
  name: 'demo',
  usage: ['[--timeout MS]'],
  about: `Starts a fresh server (built-in modes only, in a temporary project) and walks the seed workflow:
list_modes, get_mode_info, create_task, validate_tool_use (allowed and refused), switch_mode,
a subtask, get_task_info with the hierarchy, complete_task. Prints each call and its answer.`,
  options: OPTIONS,
  notes: 'Exit code 0 when every step gave the expected answer, 1 otherwise, 2 on a usage error.',
};

/** A step's outcome did not match what the workflow expects. */
class Unexpected extends Error {}

const meta = (r: JsonObject): JsonObject => (isObject(r.metadata) ? r.metadata : {});
const text = (r: JsonObject): string => (Array.isArray(r.content) ? r.content : [])
  .flatMap((b: unknown) => (isObject(b) && typeof b.text === 'string' ? [b.text] : [])).join('\n');
const field = (o: JsonObject, key: string): string => {
  const v = o[key];
  if (typeof v !== 'string') throw new Unexpected(`the result has no string "${key}"`);
  return v;
};

/** One step of the walk-through: what it calls and what it must see. */
interface Step {
  title: string;
  tool: string;
  args: () => JsonObject;
  /** Checks the result; returns the one-line verdict, or throws Unexpected. */
  expect: (result: JsonObject) => string;
}

function workflow(): Step[] {
  const ids = { parent: '', child: '' };
  return [
    {
      title: 'Which modes are there?', tool: 'list_modes', args: () => ({}),
      expect: (r) => {
        const modes = meta(r).modes;
        const slugs = Array.isArray(modes) ? modes.flatMap((m: unknown) => (isObject(m) && typeof m.slug === 'string' ? [m.slug] : [])) : [];
        for (const s of ['architect', 'code']) if (!slugs.includes(s)) throw new Unexpected(`mode ${s} is missing`);
        return `${slugs.length} modes: ${slugs.join(', ')}`;
      },
    },
    {
      title: 'What may the architect do?', tool: 'get_mode_info', args: () => ({ mode_slug: 'architect' }),
      expect: (r) => {
        const groups = meta(r).tool_groups;
        const edit = isObject(groups) && isObject(groups.edit) ? groups.edit : {};
        if (edit.enabled !== true || typeof edit.file_regex !== 'string') throw new Unexpected('architect should edit only files matching a pattern');
        return `architect edits only files matching ${edit.file_regex}`;
      },
    },
    {
      title: 'Start a task in architect mode', tool: 'create_task',
      args: () => ({ mode_slug: 'architect', initial_message: 'Design a small web app and write the plan to design.md' }),
      expect: (r) => {
        ids.parent = field(meta(r), 'session_id');
        return `session ${ids.parent}, task ${field(meta(r), 'task_id')}`;
      },
    },
    {
      title: 'May the architect write design.md?', tool: 'validate_tool_use',
      args: () => ({ session_id: ids.parent, tool_name: 'write_to_file', file_path: 'design.md' }),
      expect: (r) => {
        if (meta(r).allowed !== true) throw new Unexpected('writing design.md should be allowed');
        return 'allowed, as expected';
      },
    },
    {
      title: 'May the architect write src/app.py?', tool: 'validate_tool_use',
      args: () => ({ session_id: ids.parent, tool_name: 'write_to_file', file_path: 'src/app.py' }),
      expect: (r) => {
        if (meta(r).allowed !== false) throw new Unexpected('writing src/app.py should be refused');
        return `refused, as expected (${String(meta(r).error)})`;
      },
    },
    {
      title: 'Switch the task to code mode to implement it', tool: 'switch_mode',
      args: () => ({ session_id: ids.parent, new_mode_slug: 'code', reason: 'The design is done; time to write the code' }),
      expect: (r) => {
        if (meta(r).old_mode !== 'architect' || meta(r).new_mode !== 'code') throw new Unexpected('expected a switch from architect to code');
        return 'architect → code';
      },
    },
    {
      title: 'Now may it write src/app.py?', tool: 'validate_tool_use',
      args: () => ({ session_id: ids.parent, tool_name: 'write_to_file', file_path: 'src/app.py' }),
      expect: (r) => {
        if (meta(r).allowed !== true) throw new Unexpected('code mode should be allowed to write src/app.py');
        return 'allowed in code mode';
      },
    },
    {
      title: 'Hand a subtask to debug mode', tool: 'create_task',
      args: () => ({ mode_slug: 'debug', initial_message: 'Find out why the login test fails', parent_session_id: ids.parent }),
      expect: (r) => {
        ids.child = field(meta(r), 'session_id');
        field(meta(r), 'parent_task_id');
        return `subtask session ${ids.child}, linked to its parent`;
      },
    },
    {
      title: 'Look at the parent task and its subtasks', tool: 'get_task_info',
      args: () => ({ session_id: ids.parent, include_hierarchy: true }),
      expect: (r) => {
        const h = meta(r).hierarchy;
        const children = isObject(h) && Array.isArray(h.children) ? h.children : [];
        if (!children.some((c: unknown) => isObject(c) && c.session_id === ids.child)) throw new Unexpected('the subtask is not among the children');
        return `${children.length} subtask(s) under the parent`;
      },
    },
    {
      title: 'Finish the subtask', tool: 'complete_task',
      args: () => ({ session_id: ids.child, status: 'completed', result: 'The test used a stale fixture; fixed' }),
      expect: (r) => {
        if (meta(r).status !== 'completed') throw new Unexpected('the subtask should be completed');
        return 'subtask completed';
      },
    },
    {
      title: 'Finish the parent task', tool: 'complete_task',
      args: () => ({ session_id: ids.parent, status: 'completed', result: 'Designed, implemented and debugged' }),
      expect: (r) => {
        const active = meta(r).active_children;
        if (meta(r).status !== 'completed' || (Array.isArray(active) && active.length > 0)) throw new Unexpected('the parent should complete with no active subtasks');
        return 'task completed';
      },
    },
  ];
}

const indent = (s: string): string => s.split('\n').map((l) => `    │ ${l}`).join('\n');

export async function runDemo(argv: string[], io: DemoIo): Promise<number> {
  const parsed = readCommand(COMMAND, argv, io);
  if (typeof parsed === 'number') return parsed;
  const [command, ...selfArgs] = io.selfCommand;
  if (command === undefined) {
    io.err(`${cliMessage('demo', 'the command that starts this server is unknown')}\n`);
    return 1;
  }
  // A throwaway project and config dir: only the built-in modes apply, so every run tells the same story.
  const project = await mkdtemp(join(tmpdir(), 'roo-modes-demo-'));
  let client: McpClient | undefined;
  let failed = false;
  try {
    client = await connectStdio({
      command,
      args: [...selfArgs, '--project-root', project, '--config-dir', join(project, '.roo-code'), '--log-level', 'warning'],
      env: io.env,
      cwd: project,
      clientInfo: { name: 'roo-modes-demo', version: '1' },
      connectTimeoutMs: parsed.timeout,
      requestTimeoutMs: parsed.timeout,
    });
    const info = client.serverInfo;
    io.out(`roo-modes-server demo: the seed workflow against ${String(info.name)} ${String(info.version)} (pid ${client.pid ?? '?'}), protocol ${client.protocolVersion}\n`);
    io.out(`Project: ${project} (empty, so only the built-in modes apply)\n`);
    const steps = workflow();
    for (const [i, step] of steps.entries()) {
      const args = step.args();
      io.out(`\n[${i + 1}/${steps.length}] ${step.title}\n  → ${step.tool} ${JSON.stringify(args)}\n`);
      let result: JsonObject;
      try {
        result = await client.callTool(step.tool, args);
      } catch (err) {
        if (!(err instanceof McpError)) throw err;
        io.out(`  ✗ error ${err.code}: ${err.message}\n`);
        failed = true;
        break;
      }
      io.out(`${indent(text(result))}\n`);
      try {
        io.out(`  ✓ ${step.expect(result)}\n`);
      } catch (err) {
        if (!(err instanceof Unexpected)) throw err;
        io.out(`  ✗ unexpected: ${err.message}\n`);
        failed = true;
        break;
      }
    }
    io.out(failed ? '\nDemo stopped: a step did not give the expected answer.\n' : `\nDemo finished: all ${steps.length} steps gave the expected answer.\n`);
  } catch (err) {
    io.err(`${cliMessage('demo', err instanceof Error ? err.message : String(err))}\n`);
    if (client !== undefined && client.stderrTail) io.err(`server stderr:\n${client.stderrTail}\n`);
    failed = true;
  } finally {
    if (client !== undefined) await client.close();
    await rm(project, { recursive: true, force: true });
  }
  return failed ? 1 : 0;
}
