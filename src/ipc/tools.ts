// The roo_ipc_* tool handlers: thin adapters from validated arguments to RooBridge calls, each
// returning a short report and its metadata. They never hold the socket or build wire errors.
import { withoutNulls, type TableHandler, type ToolCallContext, type ToolResult, type ToolTable } from '../mcp/tool-types.js';
import { ValidationError } from '../rpc/errors.js';
import type { BridgeStatus, RooBridge } from './bridge.js';
import type { RooEvent } from './events.js';
import type { TaskCommandName } from './frames.js';
import { isRecord } from '../rpc/jsonrpc.js';

type Args = Record<string, unknown>;

const str = (args: Args, key: string): string | undefined => (typeof args[key] === 'string' ? args[key] : undefined);
const strings = (args: Args, key: string): string[] | undefined => {
  const v = args[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
};
const limitOf = (args: Args): number => (typeof args.limit === 'number' && args.limit >= 1 ? Math.floor(args.limit) : 1);

function clip(text: string, max = 160): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function describeStatus(s: BridgeStatus): string {
  if (!s.enabled) return 'Roo Code IPC bridge: disabled (no socket path or host/port configured).';
  const head = s.connected
    ? `Roo Code IPC bridge: connected to ${s.target} as client ${s.clientId} (Roo pid ${s.serverPid}).`
    : `Roo Code IPC bridge: not connected to ${s.target} (${s.state}, ${s.reconnectAttempts} failed attempts). Last error: ${s.lastError ?? 'none yet'}.`;
  return `${head}\nQueued: ${s.queued.messages} messages, ${s.queued.other} other events (limit ${s.queueLimit} each); ` +
    `dropped so far: ${s.dropped.messages} messages, ${s.dropped.other} other events.`;
}

/** One line per event for the text report; the metadata carries the full payloads. */
function describeEvent(e: RooEvent): string {
  const task = e.taskId === undefined ? '' : ` (evals task ${e.taskId})`;
  const first: unknown = Array.isArray(e.payload) ? e.payload[0] : undefined;
  if (e.eventName === 'message' && isRecord(first) && isRecord(first.message)) {
    const m = first.message;
    const kind = typeof m.say === 'string' ? `say:${m.say}` : typeof m.ask === 'string' ? `ask:${m.ask}` : String(m.type);
    const state = m.partial === true ? 'partial' : 'complete';
    const text = typeof m.text === 'string' ? ` ${JSON.stringify(clip(m.text))}` : '';
    return `- message ${String(first.action)} ts=${String(m.ts)} ${kind} [${state}] task ${String(first.taskId)}${task}${text}`;
  }
  return `- ${e.eventName}${task} ${clip(JSON.stringify(e.payload) ?? 'null')}`;
}

/** A command Roo does not answer: sent once the bridge has met Roo, its arguments shaped by `data`. */
function command(name: TaskCommandName, what: string, data?: (args: Args) => unknown): TableHandler<RooBridge> {
  return async (bridge, args) => {
    await bridge.firstContact();
    const clientId = bridge.send(name, data?.(args));
    return { text: `Sent ${name} to Roo Code (${what}). Roo sends no acknowledgement; watch the events for its effect.`, metadata: { sent: true, command: name, clientId } };
  };
}

/** A live query's answer (the first value of Roo's payload), with progress (asked, answered) for a client that gave a progressToken. */
async function query(bridge: RooBridge, kind: 'modes' | 'commands' | 'models', ctx: ToolCallContext): Promise<unknown> {
  ctx.progress(0, 1, `asking Roo Code for its ${kind}`);
  const payload = await bridge.query(kind, ctx.signal);
  ctx.progress(1, 1, 'answered');
  return Array.isArray(payload) ? payload[0] : undefined;
}

function rooIpcStatus(bridge: RooBridge): ToolResult {
  const s = bridge.status();
  return { text: describeStatus(s), metadata: withoutNulls({ ...s }) };
}

async function rooIpcStartTask(bridge: RooBridge, args: Args, ctx: ToolCallContext): Promise<ToolResult> {
  const configuration = isRecord(args.configuration) ? args.configuration : undefined;
  const images = strings(args, 'images');
  const waited = args.wait_for_start === true;
  ctx.progress(0, 1, waited ? 'asking Roo Code to start the task and waiting for it to start' : 'asking Roo Code to start the task');
  const out = await bridge.startTask({
    text: str(args, 'text') ?? '',
    ...(images ? { images } : {}),
    ...(configuration ? { configuration } : {}),
    ...(typeof args.new_tab === 'boolean' ? { newTab: args.new_tab } : {}),
    waitForStart: waited,
  }, ctx.signal);
  ctx.progress(1, 1, out.timedOut ? 'no start announced before the timeout' : 'sent');
  const text = !waited ? 'Sent StartNewTask to Roo Code.'
    : out.timedOut ? 'Sent StartNewTask, but Roo Code announced no task before the timeout; it may still start. Check roo_ipc_poll_other_events.'
    : `Roo Code started task ${out.taskId ?? '(no id in the event)'} (${out.startEvent}).`;
  return { text, metadata: withoutNulls({ sent: true, command: 'StartNewTask', clientId: out.clientId, waited, taskId: out.taskId, startEvent: out.startEvent, timedOut: out.timedOut }) };
}

async function rooIpcGetModes(bridge: RooBridge, _args: Args, ctx: ToolCallContext): Promise<ToolResult> {
  const list = await query(bridge, 'modes', ctx);
  const modes = (Array.isArray(list) ? list : []).filter(isRecord)
    .map((m) => ({ slug: String(m.slug ?? ''), name: String(m.name ?? '') }));
  const lines = modes.map((m) => `- ${m.slug}: ${m.name}`).join('\n');
  return { text: `Roo Code reports ${modes.length} modes (a custom mode overriding a built-in slug is listed twice):\n${lines}`, metadata: { modes, count: modes.length } };
}

async function rooIpcGetCommands(bridge: RooBridge, _args: Args, ctx: ToolCallContext): Promise<ToolResult> {
  const list = await query(bridge, 'commands', ctx);
  const commands = (Array.isArray(list) ? list : []).filter(isRecord);
  const lines = commands.map((c) => `- /${String(c.name)} (${String(c.source)})${typeof c.description === 'string' ? `: ${c.description}` : ''}`).join('\n');
  return { text: `Roo Code reports ${commands.length} slash commands:\n${lines}`, metadata: { commands, count: commands.length } };
}

async function rooIpcGetModels(bridge: RooBridge, _args: Args, ctx: ToolCallContext): Promise<ToolResult> {
  const first = await query(bridge, 'models', ctx);
  const models = isRecord(first) ? first : {};
  const ids = Object.keys(models);
  return { text: `Roo Code reports ${ids.length} models from its Roo provider: ${clip(ids.join(', '), 2000)}`, metadata: { models, count: ids.length } };
}

function rooIpcPollAiMessages(bridge: RooBridge, args: Args): ToolResult {
  const r = bridge.pollMessages(limitOf(args));
  const head = `${r.events.length} message events${r.isPartial ? ' (the last one is still streaming)' : ''}; ` +
    `${r.remaining} still queued; ${r.dropped} dropped since the last poll.`;
  return { text: [head, ...r.events.map(describeEvent)].join('\n'), metadata: { events: r.events, isPartial: r.isPartial, dropped: r.dropped, remaining: r.remaining } };
}

function rooIpcPollOtherEvents(bridge: RooBridge, args: Args): ToolResult {
  const r = bridge.pollOther(limitOf(args));
  const head = `${r.events.length} events; ${r.remaining} still queued; ${r.dropped} dropped since the last poll.`;
  return { text: [head, ...r.events.map(describeEvent)].join('\n'), metadata: { events: r.events, dropped: r.dropped, remaining: r.remaining } };
}

export const IPC_TOOLS = {
  roo_ipc_status: rooIpcStatus,
  roo_ipc_start_task: rooIpcStartTask,
  roo_ipc_send_message: command('SendMessage', 'a message to the current task', (args) => {
    const text = str(args, 'text');
    const images = strings(args, 'images');
    if (text === undefined && (images === undefined || images.length === 0)) throw new ValidationError('send_message needs text, images, or both');
    return { ...(text !== undefined ? { text } : {}), ...(images ? { images } : {}) };
  }),
  roo_ipc_cancel_task: command('CancelTask', 'cancel the current task'),
  roo_ipc_close_task: command('CloseTask', 'Roo saves files and closes the VS Code window'),
  roo_ipc_resume_task: command('ResumeTask', 'resume a task from history', (args) => str(args, 'task_id')),
  roo_ipc_delete_queued_message: command('DeleteQueuedMessage', 'remove a queued message', (args) => str(args, 'message_id')),
  roo_ipc_get_modes: rooIpcGetModes,
  roo_ipc_get_commands: rooIpcGetCommands,
  roo_ipc_get_models: rooIpcGetModels,
  roo_ipc_poll_ai_messages: rooIpcPollAiMessages,
  roo_ipc_poll_other_events: rooIpcPollOtherEvents,
} satisfies ToolTable<RooBridge>;
