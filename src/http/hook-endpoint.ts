// `POST /hooks/claude-code`: Claude Code's HTTP hooks, decided in-process from the catalogue the
// server holds and watches. It never answers "allow" (no objection is `{}`) and never spawns.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { homedir } from 'node:os';
import type { Core } from '../core.js';
import { HookInputError, parseToolEvent } from '../hook/event.js';
import { claudeDenial, judgeEvent, modeForAgent, unknowableAgent } from '../hook/decide.js';
import { orphanedAgent } from '../hook/exported-agent.js';
import type { CompiledMode } from '../modes/permissions.js';
import { BodyTooLarge, isJsonBody, readBody, sendJson } from './wire.js';

/** Where the endpoint answers; the MCP endpoint's security checks run before it. */
export const HOOK_PATH = '/hooks/claude-code';

/** An error answer: any non-2xx makes Claude Code treat the hook as failed (with onFailure "block", the call is blocked). */
class HookHttpError extends Error {
  constructor(readonly status: number, message: string) { super(message); }
}

const NO_OBJECTION = '{}';

/** Answers one hook request; every failure becomes a non-2xx with the reason as {"error": …}. */
export async function answerHook(core: Core, req: IncomingMessage, res: ServerResponse, url: string, maxBodyBytes: number): Promise<void> {
  try {
    sendJson(res, 200, await decide(core, req, url, maxBodyBytes));
  } catch (err) {
    // A file field of a known tool that is malformed is the caller's error, found while judging.
    const status = err instanceof HookHttpError ? err.status : err instanceof HookInputError ? 400 : 500;
    if (status === 500) core.log.error('hook request failed', err);
    const headers: Record<string, string> = status === 405 ? { allow: 'POST' } : status === 413 ? { connection: 'close' } : {};
    sendJson(res, status, JSON.stringify({ error: err instanceof Error ? err.message : String(err) }), headers);
  }
}

async function decide(core: Core, req: IncomingMessage, url: string, maxBodyBytes: number): Promise<string> {
  if (req.method !== 'POST') throw new HookHttpError(405, `${req.method ?? '?'} is not served here; Claude Code POSTs the event`);
  // As the MCP endpoint: a body not declared JSON (a form, text/plain) is refused before it is read,
  // so a browser's "simple" cross-site POST cannot reach the judge without a preflight.
  if (!isJsonBody(req)) {
    req.resume();
    throw new HookHttpError(415, `Unsupported Media Type: the hook event must be sent as application/json (Content-Type was ${JSON.stringify(req.headers['content-type'] ?? null)})`);
  }
  const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  let text: string;
  try { text = await readBody(req, maxBodyBytes); } catch (err) {
    if (err instanceof BodyTooLarge) throw new HookHttpError(413, err.message);
    throw err;
  }
  const event = parseToolEvent(text);
  // The modes alone: the endpoint needs no tool, session or store of the services.
  const modes = await core.modes();
  const catalogue = modes.current;
  const slug = query.get('mode');
  let mode: CompiledMode | undefined;
  if (slug !== null) {
    mode = catalogue.get(slug);
    if (!mode) throw new HookHttpError(404, `unknown mode "${slug}"; the modes in force: ${catalogue.slugs().join(', ')}`);
  } else {
    // Without ?mode=, the mode is the subagent's (an exported agent's name is its slug lower-cased).
    if (event.agentType === null) return NO_OBJECTION;
    mode = modeForAgent(catalogue.modes, event.agentType);
    if (!mode) {
      const unknowable = await unknowableAgent(catalogue, event.agentType);
      if (unknowable !== null) throw new HookHttpError(503, unknowable);
      const orphan = await orphanedAgent(catalogue, event.agentType, modes.projectRoot ?? process.cwd(), homedir());
      if (orphan !== null) throw new HookHttpError(503, orphan);
      return NO_OBJECTION;
    }
  }
  const verdict = judgeEvent(mode, event, modes.projectRoot ?? process.cwd());
  return verdict.deny ? JSON.stringify(claudeDenial(verdict.reason)) : NO_OBJECTION;
}
