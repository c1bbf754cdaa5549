// The scripted mock model over real HTTP, in each API's shape, without any agent installed: the
// script's turns, streaming and whole answers, and the record of what the agents sent back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MockModel, type Script } from './mock-model.js';

const script = (): Script => ({
  marker: 'MARK',
  writes: [{ path: '/p/a.md', content: 'a' }, { path: '/p/b.ts', content: 'b' }],
  dialect: {
    write: { tool: 'Write', args: (w) => ({ file_path: w.path, content: w.content }) },
    delegate: { tool: 'Agent', args: { subagent_type: 'x' } },
    finish: { tool: 'done', args: { result: 'ok' } },
  },
});

async function started(t: { after(fn: () => Promise<void>): void }): Promise<MockModel> {
  const mock = new MockModel(script());
  await mock.start();
  t.after(() => mock.stop());
  return mock;
}

const post = async (url: string, body: unknown): Promise<{ status: number; type: string; text: string }> => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
};
const sseData = (text: string): unknown[] => text.split('\n').filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]').map((l) => JSON.parse(l.slice(6)) as unknown);

test('Anthropic Messages: the main session delegates, the agent writes each file in turn, then ends; streamed and whole', async (t) => {
  const mock = await started(t);
  const url = `${mock.url}/v1/messages?beta=true`;
  const main = await post(url, { model: 'm', system: [{ type: 'text', text: 'main' }], tools: [{ name: 'Agent' }, { name: 'Write' }], messages: [{ role: 'user', content: 'go' }] });
  assert.deepEqual((JSON.parse(main.text) as { content: unknown[] }).content, [{ type: 'tool_use', id: 'toolu_1', name: 'Agent', input: { subagent_type: 'x' } }]);

  const agent = (content: unknown[]) => ({ model: 'm', stream: true, system: 'You are MARK.', tools: [{ name: 'Write' }, { name: 'done' }], messages: [{ role: 'user', content: 'go' }, ...content] });
  const first = await post(url, agent([]));
  assert.match(first.type, /^text\/event-stream/);
  const events = sseData(first.text) as { type: string; delta?: { partial_json?: string; stop_reason?: string } }[];
  assert.deepEqual(events.map((e) => e.type), ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
  assert.deepEqual(JSON.parse(events[2]!.delta!.partial_json!), { file_path: '/p/a.md', content: 'a' });
  assert.equal(events[4]!.delta!.stop_reason, 'tool_use');

  const turn = (n: number, name = 'Write') => [
    { role: 'assistant', content: [{ type: 'tool_use', id: `t${n}`, name, input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n}`, content: [{ type: 'text', text: `result ${n}` }] }] },
  ];
  const second = sseData((await post(url, agent(turn(1)))).text) as { delta?: { partial_json?: string } }[];
  assert.deepEqual(JSON.parse(second[2]!.delta!.partial_json!), { file_path: '/p/b.ts', content: 'b' }, 'the next write, whatever the first answered');
  const third = sseData((await post(url, agent([...turn(1), ...turn(2)]))).text) as { content_block?: { name?: string } }[];
  assert.equal(third[1]!.content_block!.name, 'done', 'the finish tool once the writes are made');
  const last = JSON.parse((await post(url, { ...agent([...turn(1), ...turn(2), ...turn(3, 'done')]), stream: false })).text) as { content: unknown[]; stop_reason: string };
  assert.deepEqual([last.content, last.stop_reason], [[{ type: 'text', text: 'The agent has made its writes.' }], 'end_turn']);

  assert.deepEqual(mock.results(), ['result 1', 'result 2', 'result 3']);
  assert.deepEqual(mock.attempted(), script().writes);
  assert.deepEqual(JSON.parse((await post(`${mock.url}/v1/messages/count_tokens`, {})).text), { input_tokens: 10 });
});

test('OpenAI chat completions: tool calls streamed as chunks ending in [DONE], or whole', async (t) => {
  const mock = await started(t);
  const url = `${mock.url}/v1/chat/completions`;
  const tools = [{ type: 'function', function: { name: 'Write' } }];
  const body = { model: 'm', stream: true, tools, messages: [{ role: 'system', content: 'MARK' }, { role: 'user', content: 'go' }] };
  const streamed = await post(url, body);
  assert.match(streamed.text, /data: \[DONE\]\n\n$/);
  const chunks = sseData(streamed.text) as { choices: { delta: { tool_calls?: { function: { name: string; arguments: string } }[] }; finish_reason: string | null }[] }[];
  assert.deepEqual(JSON.parse(chunks[0]!.choices[0]!.delta.tool_calls![0]!.function.arguments), { file_path: '/p/a.md', content: 'a' });
  assert.equal(chunks[1]!.choices[0]!.finish_reason, 'tool_calls');

  const answered = [...body.messages, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Write', arguments: '{"file_path":"/p/a.md"}' } }] }, { role: 'tool', tool_call_id: 'c1', content: 'refused' }];
  const whole = JSON.parse((await post(url, { ...body, stream: false, messages: answered })).text) as { choices: { message: { tool_calls: { function: { arguments: string } }[] } }[] };
  assert.deepEqual(JSON.parse(whole.choices[0]!.message.tool_calls[0]!.function.arguments), { file_path: '/p/b.ts', content: 'b' });
  assert.deepEqual(mock.results(), ['refused']);
  const title = JSON.parse((await post(url, { model: 'm', messages: [{ role: 'system', content: 'Make a title' }] })).text) as { choices: { message: { content: string } }[] };
  assert.equal(title.choices[0]!.message.content, 'ok', 'a conversation the script does not know gets a short text');
});

test('Gemini API: generateContent, streamGenerateContent as SSE, countTokens; unknown paths are 404', async (t) => {
  const mock = await started(t);
  const base = `${mock.url}/v1beta/models/gemini-2.5-flash`;
  const body = { systemInstruction: { parts: [{ text: 'main' }] }, tools: [{ functionDeclarations: [{ name: 'Agent' }] }], contents: [{ role: 'user', parts: [{ text: 'go' }] }] };
  const whole = JSON.parse((await post(`${base}:generateContent`, body)).text) as { candidates: { content: { parts: { functionCall: { name: string } }[] } }[] };
  assert.equal(whole.candidates[0]!.content.parts[0]!.functionCall.name, 'Agent');
  const called = { ...body, contents: [...body.contents, { role: 'model', parts: [{ functionCall: { name: 'Agent', args: {} } }] }, { role: 'user', parts: [{ functionResponse: { name: 'Agent', response: { output: 'finished' } } }] }] };
  const streamed = sseData((await post(`${base}:streamGenerateContent?alt=sse`, called)).text) as { candidates: { content: { parts: { text: string }[] } }[] }[];
  assert.equal(streamed[0]!.candidates[0]!.content.parts[0]!.text, 'The session is over.');
  assert.deepEqual(mock.results(), ['{"output":"finished"}']);
  assert.deepEqual(JSON.parse((await post(`${base}:countTokens`, {})).text), { totalTokens: 10 });
  assert.equal((await post(`${mock.url}/v1/embeddings`, {})).status, 404);
  assert.equal(mock.requests.length, 4, 'every request is recorded, the unknown one too');
});
