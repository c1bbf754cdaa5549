// `POST /hooks/claude-code`: Claude Code's HTTP hooks, decided in-process from the catalogue the
// server holds and watches. It never answers "allow" (no objection is `{}`) and never spawns.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { homedir } from 'node:os';
import type { Core } from '../core.js';
import { HookInputError, parseToolEvent, type ToolEvent } from '../hook/event.js';
import { claudeDenialJson, judgeEvent, modeForAgent, unknowableAgent } from '../hook/decide.js';
import { orphanedAgent } from '../hook/exported-agent.js';
import type { CompiledMode } from '../modes/permissions.js';
import type { ModeRegistry } from '../modes/registry.js';
import { BodyTooLarge, isJsonBody, onBody, sendJson } from './wire.js';

/** Where the endpoint answers; the MCP endpoint's security checks run before it. */
export const HOOK_PATH = '/hooks/claude-code';

/** An error answer: any non-2xx makes Claude Code treat the hook as failed (with onFailure "block", the call is blocked). */
class HookHttpError extends Error {
  constructor(readonly status: number, message: string) { super(message); }
}

const NO_OBJECTION = '{}';
/** The headers of the common answer, built once (a caller makes one request per tool call). */
const NO_OBJECTION_HEADERS: Readonly<Record<string, string | number>> = { 'content-type': 'application/json', 'content-length': 2 };

/**
 * Answers one hook request; every failure becomes a non-2xx with the reason as {"error": …}. Once
 * the mode files are loaded the decision is made in the body's `end` event, with no promise: an
 * agent asks once per tool call, and under many callers each microtask shows in the tail.
 */
export function answerHook(core: Core, req: IncomingMessage, res: ServerResponse, url: string, maxBodyBytes: number): Promise<void> {
  return new Promise((resolve) => {
    const fail = (err: unknown): void => {
      // A file field of a known tool that is malformed is the caller's error, found while judging.
      const status = err instanceof HookHttpError ? err.status : err instanceof HookInputError ? 400 : 500;
      if (status === 500) core.log.error('hook request failed', err);
      const headers: Record<string, string> = status === 405 ? { allow: 'POST' } : status === 413 ? { connection: 'close' } : {};
      sendJson(res, status, JSON.stringify({ error: err instanceof Error ? err.message : String(err) }), headers);
      resolve();
    };
    const answer = (body: string): void => {
      if (body === NO_OBJECTION && !res.headersSent) res.writeHead(200, NO_OBJECTION_HEADERS).end(NO_OBJECTION);
      else sendJson(res, 200, body);
      resolve();
    };
    if (req.method !== 'POST') { fail(new HookHttpError(405, `${req.method ?? '?'} is not served here; Claude Code POSTs the event`)); return; }
    // As the MCP endpoint: a body not declared JSON (a form, text/plain) is refused before it is read,
    // so a browser's "simple" cross-site POST cannot reach the judge without a preflight.
    if (!isJsonBody(req)) {
      req.resume();
      fail(new HookHttpError(415, `Unsupported Media Type: the hook event must be sent as application/json (Content-Type was ${JSON.stringify(req.headers['content-type'] ?? null)})`));
      return;
    }
    onBody(req, maxBodyBytes, (err, text) => {
      if (err !== null) { fail(err instanceof BodyTooLarge ? new HookHttpError(413, err.message) : err); return; }
      try {
        const event = parseToolEvent(text!);
        // The modes alone: the endpoint needs no tool, session or store of the services.
        const loaded = core.loadedModes();
        const decided = loaded === null ? null : decide(loaded, event, url);
        if (typeof decided === 'string') { answer(decided); return; }
        if (decided !== null) { decided.then(answer, fail); return; }
        core.modes().then((modes) => decide(modes, event, url)).then(answer, fail);
      } catch (e) { fail(e); }
    });
  });
}

/** The `mode` query parameter of the last query string seen: callers repeat the same URL. */
const lastQuery = { text: '', mode: null as string | null };
function modeParam(url: string): string | null {
  const at = url.indexOf('?');
  if (at === -1) return null;
  const text = url.slice(at + 1);
  if (text !== lastQuery.text) { lastQuery.mode = new URLSearchParams(text).get('mode'); lastQuery.text = text; }
  return lastQuery.mode;
}

/** The answer's body for one event under the loaded modes; a promise only when a mode file must be read. */
function decide(modes: ModeRegistry, event: ToolEvent, url: string): string | Promise<string> {
  const catalogue = modes.current;
  const slug = modeParam(url);
  let mode: CompiledMode | undefined;
  if (slug !== null) {
    mode = catalogue.get(slug);
    if (!mode) throw new HookHttpError(404, `unknown mode "${slug}"; the modes in force: ${catalogue.slugs().join(', ')}`);
  } else {
    // Without ?mode=, the mode is the subagent's (an exported agent's name is its slug lower-cased).
    if (event.agentType === null) return NO_OBJECTION;
    mode = modeForAgent(catalogue.modes, event.agentType);
    if (!mode) {
      return unknowableAgent(catalogue, event.agentType).then(async (unknowable) => {
        if (unknowable !== null) throw new HookHttpError(503, unknowable);
        const orphan = await orphanedAgent(catalogue, event.agentType!, modes.projectRoot ?? process.cwd(), homedir());
        if (orphan !== null) throw new HookHttpError(503, orphan);
        return NO_OBJECTION;
      });
    }
  }
  const verdict = judgeEvent(mode, event, modes.projectRoot ?? process.cwd());
  return verdict.deny ? claudeDenialJson(verdict.reason) : NO_OBJECTION;
}

