// A scripted model on 127.0.0.1 for the real agent CLIs: the Anthropic Messages API, OpenAI-style
// chat completions and the Gemini API, each reduced to one conversation view that a script answers.
// It records every request it gets; it never writes files itself (the agents' own tools must).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One file the agent is to write with its own tool. */
export interface Write { path: string; content: string }

/** How one agent CLI names things: its write tool, and how its main session reaches a subagent. */
export interface Dialect {
  write: { tool: string; args(w: Write): Record<string, unknown> };
  /** Absent when the session is the agent itself (`--agent NAME`). */
  delegate?: { tool: string; args: Record<string, unknown> };
  /** A tool the agent must call to hand its work back (Gemini's subagents: complete_task), when offered. */
  finish?: { tool: string; args: Record<string, unknown> };
}

/**
 * What the model does: in the conversation whose system prompt holds `marker` (the agent's own
 * instructions), call the write tool once per entry of `writes`, whatever each call answered, then
 * hand back (the finish tool, else a text); in a conversation that offers the delegate tool, call it
 * once, then end with a text. Anything else (titles, summaries) gets a short text.
 */
export interface Script { marker: string; writes: Write[]; dialect: Dialect }

export type Api = 'anthropic' | 'openai' | 'gemini' | 'other';

/** A request as received, with the view the script saw and what it answered. */
export interface Recorded { api: Api; method: string; url: string; body: unknown; view?: View; reply?: Reply }

/** The parts of one request that the script decides on, whatever the API. */
export interface View { system: string; tools: string[]; calls: { name: string; args: unknown }[]; results: string[] }

export type Reply = { text: string } | { call: { name: string; args: Record<string, unknown> } };

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Json : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** Text of a string, or of an array of `{ text }` parts. */
const textOf = (v: unknown): string => (typeof v === 'string' ? v : arr(v).map((p) => str(obj(p).text)).join('\n'));

export function decide(view: View, s: Script): Reply {
  const { write, delegate, finish } = s.dialect;
  if (view.system.includes(s.marker) && view.tools.includes(write.tool)) {
    const made = view.calls.filter((c) => c.name === write.tool).length;
    const next = s.writes[made];
    if (next) return { call: { name: write.tool, args: write.args(next) } };
    if (finish && view.tools.includes(finish.tool) && !view.calls.some((c) => c.name === finish.tool)) return { call: { name: finish.tool, args: finish.args } };
    return { text: 'The agent has made its writes.' };
  }
  if (delegate && view.tools.includes(delegate.tool)) {
    return view.calls.some((c) => c.name === delegate.tool) ? { text: 'The session is over.' } : { call: { name: delegate.tool, args: delegate.args } };
  }
  return { text: 'ok' };
}

// --- Anthropic Messages API -------------------------------------------------------------------

function anthropicView(b: Json): View {
  const view: View = { system: textOf(b.system), tools: arr(b.tools).map((t) => str(obj(t).name)), calls: [], results: [] };
  for (const m of arr(b.messages)) {
    for (const block of arr(obj(m).content)) {
      const o = obj(block);
      if (o.type === 'tool_use') view.calls.push({ name: str(o.name), args: o.input });
      if (o.type === 'tool_result') view.results.push(textOf(o.content));
    }
  }
  return view;
}

function anthropicEvents(reply: Reply, id: string, model: string): { message: Json; events: [string, Json][] } {
  const block: Json = 'text' in reply ? { type: 'text', text: reply.text } : { type: 'tool_use', id: `toolu_${id}`, name: reply.call.name, input: reply.call.args };
  const stop = 'text' in reply ? 'end_turn' : 'tool_use';
  const usage = { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id: `msg_${id}`, type: 'message', role: 'assistant', model, content: [block], stop_reason: stop, stop_sequence: null, usage };
  const delta: Json = 'text' in reply ? { type: 'text_delta', text: reply.text } : { type: 'input_json_delta', partial_json: JSON.stringify(reply.call.args) };
  const start: Json = 'text' in reply ? { type: 'text', text: '' } : { type: 'tool_use', id: `toolu_${id}`, name: reply.call.name, input: {} };
  return {
    message,
    events: [
      ['message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null } }],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: start }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 10 } }],
      ['message_stop', { type: 'message_stop' }],
    ],
  };
}

// --- OpenAI-compatible chat completions -------------------------------------------------------

function openaiView(b: Json): View {
  const view: View = { system: '', tools: arr(b.tools).map((t) => str(obj(obj(t).function).name)), calls: [], results: [] };
  for (const raw of arr(b.messages)) {
    const m = obj(raw);
    if (m.role === 'system') view.system += `${textOf(m.content)}\n`;
    if (m.role === 'tool') view.results.push(textOf(m.content));
    for (const c of arr(m.tool_calls)) {
      const f = obj(obj(c).function);
      let args: unknown = f.arguments;
      try { args = JSON.parse(str(f.arguments)); } catch { /* kept as sent */ }
      view.calls.push({ name: str(f.name), args });
    }
  }
  return view;
}

function openaiChunks(reply: Reply, id: string, model: string): { whole: Json; chunks: Json[] } {
  const call = 'call' in reply ? { id: `call_${id}`, type: 'function', function: { name: reply.call.name, arguments: JSON.stringify(reply.call.args) } } : undefined;
  const finish = call ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
  const base = { id: `chatcmpl-${id}`, created: 0, model };
  const message = call ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: 'text' in reply ? reply.text : '' };
  const delta = call ? { role: 'assistant', tool_calls: [{ index: 0, ...call }] } : { role: 'assistant', content: message.content };
  return {
    whole: { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage },
    chunks: [
      { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] },
      { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: finish }], usage },
    ],
  };
}

// --- Gemini API -------------------------------------------------------------------------------

function geminiView(b: Json): View {
  const view: View = { system: textOf(obj(b.systemInstruction).parts) || str(b.systemInstruction), tools: [], calls: [], results: [] };
  for (const t of arr(b.tools)) for (const d of arr(obj(t).functionDeclarations)) view.tools.push(str(obj(d).name));
  for (const c of arr(b.contents)) {
    for (const p of arr(obj(c).parts)) {
      const part = obj(p);
      if (part.functionCall) view.calls.push({ name: str(obj(part.functionCall).name), args: obj(part.functionCall).args });
      if (part.functionResponse) view.results.push(JSON.stringify(obj(part.functionResponse).response));
    }
  }
  return view;
}

function geminiResponse(reply: Reply, id: string): Json {
  const part = 'text' in reply ? { text: reply.text } : { functionCall: { id: `fc_${id}`, name: reply.call.name, args: reply.call.args } };
  return {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 },
    modelVersion: 'mock', responseId: `resp_${id}`,
  };
}

// --- the server -------------------------------------------------------------------------------

export class MockModel {
  readonly requests: Recorded[] = [];
  #server: Server;
  #count = 0;
  #url?: string;

  constructor(readonly script: Script) {
    this.#server = createServer((req, res) => { this.#serve(req, res).catch((err: Error) => { res.writeHead(500).end(err.message); }); });
  }

  async start(): Promise<string> {
    await new Promise<void>((ready) => this.#server.listen(0, '127.0.0.1', ready));
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this.#url;
  }

  get url(): string {
    if (!this.#url) throw new Error('the mock model is not started');
    return this.#url;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((closed) => this.#server.close(() => closed()));
  }

  /** Every tool result the agents sent back, in order of arrival, each once. */
  results(): string[] {
    return [...new Set(this.requests.flatMap((r) => r.view?.results ?? []))];
  }

  /** The calls the script made, as replies in order. */
  calls(): { name: string; args: Record<string, unknown> }[] {
    return this.requests.flatMap((r) => (r.reply && 'call' in r.reply ? [r.reply.call] : []));
  }

  /** The script's writes that the model asked the agent to make. */
  attempted(): Write[] {
    const { write } = this.script.dialect;
    const made = new Set(this.calls().filter((c) => c.name === write.tool).map((c) => JSON.stringify(c.args)));
    return this.script.writes.filter((w) => made.has(JSON.stringify(write.args(w))));
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = raw;
    try { body = raw === '' ? undefined : JSON.parse(raw); } catch { /* recorded as text */ }
    const b = obj(body);
    const url = new URL(req.url ?? '/', 'http://mock');
    const path = url.pathname;
    const id = String(++this.#count);
    const rec: Recorded = { api: 'other', method: req.method ?? '', url: req.url ?? '', body };
    this.requests.push(rec);
    const json = (status: number, value: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value)); };
    const sse = (events: [string | undefined, unknown][]) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const [event, data] of events) res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
      res.end();
    };
    const answer = (view: View): Reply => { rec.view = view; rec.reply = decide(view, this.script); return rec.reply; };

    if (req.method === 'POST' && path.endsWith('/messages/count_tokens')) {
      rec.api = 'anthropic';
      return json(200, { input_tokens: 10 });
    }
    if (req.method === 'POST' && path.endsWith('/messages')) {
      rec.api = 'anthropic';
      const { message, events } = anthropicEvents(answer(anthropicView(b)), id, str(b.model));
      return b.stream === true ? sse(events) : json(200, message);
    }
    if (req.method === 'POST' && path.endsWith('/chat/completions')) {
      rec.api = 'openai';
      const { whole, chunks: parts } = openaiChunks(answer(openaiView(b)), id, str(b.model));
      return b.stream === true ? sse([...parts.map((p): [undefined, Json] => [undefined, p]), [undefined, '[DONE]']]) : json(200, whole);
    }
    const gemini = /\/models\/[^/:]+:(generateContent|streamGenerateContent|countTokens)$/.exec(path);
    if (req.method === 'POST' && gemini) {
      rec.api = 'gemini';
      if (gemini[1] === 'countTokens') return json(200, { totalTokens: 10 });
      const response = geminiResponse(answer(geminiView(b)), id);
      if (gemini[1] === 'generateContent') return json(200, response);
      return url.searchParams.get('alt') === 'sse' ? sse([[undefined, response]]) : json(200, [response]);
    }
    return json(404, { error: { message: `the mock model does not serve ${req.method} ${path}` } });
  }
}
