// Modes as MCP prompts: one prompt per mode (name = slug) whose messages carry the mode's system
// prompt and, when given, the task. Reads the catalogue; never changes it.
import { InvalidParamsError, quoteName, shortList } from '../rpc/errors.js';
import { isRecord, type Params } from '../rpc/jsonrpc.js';
import type { Catalogue } from '../modes/catalogue.js';
import type { CompiledMode } from '../modes/permissions.js';
import { paginate } from './pagination.js';
import { atLeast } from './lifecycle.js';

export interface PromptDeps {
  catalogue(): Catalogue;
  systemPrompt(mode: CompiledMode): Promise<string>;
  pageSize: number;
  protocolVersion(): string;
}

export function listPrompts(d: PromptDeps, params: Params): unknown {
  const titled = atLeast(d.protocolVersion(), '2025-06-18');
  const all = d.catalogue().modes.map((m) => ({
    name: m.slug,
    ...(titled ? { title: m.name } : {}),
    description: m.whenToUse ?? m.description ?? `Work in ${m.name} mode`,
    arguments: [{ name: 'task', description: 'The task to carry out in this mode (optional).', required: false }],
  }));
  const page = paginate(all, params.cursor, d.pageSize);
  return page.nextCursor === undefined ? { prompts: page.items } : { prompts: page.items, nextCursor: page.nextCursor };
}

export async function getPrompt(d: PromptDeps, params: Params): Promise<unknown> {
  const name = params.name;
  if (typeof name !== 'string') throw new InvalidParamsError('prompts/get needs a "name" string');
  const cat = d.catalogue();
  const mode = cat.get(name);
  if (!mode) {
    throw new InvalidParamsError(`Unknown prompt ${quoteName(name)}. Prompts are named by mode slug: ${shortList(cat.slugs())}`, {
      message: `Prompts are named by mode slug; available: ${cat.slugs().join(', ')}`, available: cat.slugs(),
    });
  }
  const args = params.arguments ?? {};
  if (!isRecord(args)) throw new InvalidParamsError('prompts/get "arguments" must be an object of strings');
  const task = args.task;
  if (task !== undefined && typeof task !== 'string') throw new InvalidParamsError('prompts/get argument "task" must be a string');
  const messages: unknown[] = [{ role: 'user', content: { type: 'text', text: await d.systemPrompt(mode) } }];
  if (task) messages.push({ role: 'user', content: { type: 'text', text: task } });
  return { description: `${mode.name} mode`, messages };
}
