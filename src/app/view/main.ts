// The modes view's entry. With data written into the page (modes --html) it draws that; inside an
// MCP Apps host it asks the server through the host and draws again whenever it is told of a change.
import type { ViewData, ViewVerdict } from '../view-data.js';
import { HostChannel, reportSize } from './host.js';
import { applyHostContext } from './theme.js';
import { drawProblems, drawTable } from './table.js';
import { keyboardGrid } from './grid-keys.js';
import { byId, el } from './dom.js';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const VIEW_INFO = { name: 'roo-modes-view', version: '1' };
/** The MCP Apps revision this view speaks. */
const APPS_PROTOCOL = '2026-01-26';

const page = {
  title: byId('title'),
  status: byId('status'),
  table: byId<HTMLTableElement>('grid'),
  problems: byId('problems'),
  problemList: byId('problem-list'),
  form: byId<HTMLFormElement>('try'),
  mode: byId<HTMLSelectElement>('try-mode'),
  path: byId<HTMLInputElement>('try-path'),
  go: byId<HTMLButtonElement>('try-go'),
  verdict: byId('verdict'),
  note: byId('static-note'),
};
/** The mode a model's get_mode_info asked about, marked in the table. */
const asked = { slug: null as string | null };

const say = (text: string): void => { page.status.textContent = text; };

const grid = keyboardGrid(page.table, (slug) => {
  if (page.form.hidden) return;
  page.mode.value = slug;
  page.path.focus();
});

function draw(data: ViewData): void {
  page.title.textContent = `Modes of ${data.project}`;
  grid.redraw(() => {
    drawTable(page.table, data);
    for (const row of page.table.tBodies[0]?.rows ?? []) {
      if (row.dataset.slug === asked.slug) row.setAttribute('aria-current', 'true');
    }
  });
  drawProblems(page.problems, page.problemList, data.problems);
  const chosen = page.mode.value;
  page.mode.replaceChildren(...data.modes.map((m) => el('option', { value: m.slug }, `${m.name} (${m.slug})`)));
  if (data.modes.some((m) => m.slug === chosen)) page.mode.value = chosen;
  say(data.problems.length === 0 ? '' : `${data.problems.length} problem${data.problems.length === 1 ? '' : 's'} in the mode files (listed below the table).`);
}

/** A tool's answer as the view reads it: the structured result, or the failure in the result's words. */
function structured(result: unknown): Json {
  if (!isRecord(result)) throw new Error('the host gave no tool result');
  const text = Array.isArray(result.content) ? result.content.map((c) => (isRecord(c) && typeof c.text === 'string' ? c.text : '')).join('\n') : '';
  if (result.isError === true) throw new Error(text || 'the tool failed');
  // structuredContent from 2025-06-18; before it, the seed's metadata carries the same object.
  const out = isRecord(result.structuredContent) ? result.structuredContent : result.metadata;
  if (!isRecord(out)) throw new Error('the tool result has no structured content');
  return out;
}

/** Runs `job` now, or once more after the run in progress: changes told meanwhile are not lost. */
function coalesced(job: () => Promise<void>): () => Promise<void> {
  const state = { running: null as Promise<void> | null, again: false };
  const run = async (): Promise<void> => {
    do { state.again = false; await job(); } while (state.again);
  };
  return () => {
    if (state.running) { state.again = true; return state.running; }
    state.running = run().finally(() => { state.running = null; });
    return state.running;
  };
}

function showVerdict(v: ViewVerdict): void {
  page.verdict.className = v.allowed ? 'verdict ok' : 'verdict no';
  page.verdict.replaceChildren(el('strong', {}, v.allowed ? '✓ Allowed' : '✗ Refused'), ` ${v.mode} on ${v.file_path}: `, v.reason);
}

async function hosted(): Promise<void> {
  const channel = new HostChannel(window.parent);
  const call = async (name: string, args: Json): Promise<Json> => structured(await channel.request('tools/call', { name, arguments: args }));
  const refresh = coalesced(async () => {
    try { draw(await call('mode_matrix', {}) as unknown as ViewData); } catch (err) { say(`Could not read the modes: ${(err as Error).message}`); }
  });
  const init = await channel.request('ui/initialize', { appInfo: VIEW_INFO, appCapabilities: { availableDisplayModes: ['inline'] }, protocolVersion: APPS_PROTOCOL });
  const answer = isRecord(init) ? init : {};
  applyHostContext(answer.hostContext);
  const canCall = isRecord(answer.hostCapabilities) && isRecord(answer.hostCapabilities.serverTools);
  channel.on('ui/notifications/host-context-changed', applyHostContext);
  channel.on('ui/notifications/tool-input', (p) => {
    const slug = isRecord(p.arguments) ? p.arguments.mode_slug : undefined;
    asked.slug = typeof slug === 'string' ? slug : null;
  });
  channel.on('ui/resource-teardown', () => { /* nothing to save: the view only reads */ });
  if (canCall) {
    // A finished tool call, or the server's word that the modes changed: ask again.
    channel.on('ui/notifications/tool-result', () => { void refresh(); });
    channel.on('notifications/resources/list_changed', () => { void refresh(); });
  }
  channel.notify('ui/notifications/initialized');
  reportSize(channel);
  if (!canCall) {
    say('This host does not pass a view\'s tool calls on to the server, so the modes cannot be shown here; list_modes gives them as text.');
    return;
  }
  page.form.hidden = false;
  const tryPath = (): void => {
    const args = { mode_slug: page.mode.value, file_path: page.path.value.trim() };
    if (args.file_path === '') { page.path.focus(); return; }
    page.verdict.className = 'verdict';
    page.verdict.textContent = 'Asking the server…';
    call('try_mode_path', args).then((v) => showVerdict(v as unknown as ViewVerdict), (err: Error) => { page.verdict.className = 'verdict no'; page.verdict.textContent = err.message; });
  };
  // Not a form submission: hosts sandbox views without allow-forms, where a submit never fires.
  page.go.addEventListener('click', tryPath);
  page.path.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); tryPath(); } });
  // Where forms are allowed, a submission must not navigate the view away.
  page.form.addEventListener('submit', (e) => { e.preventDefault(); tryPath(); });
  await refresh();
}

function start(): void {
  const embedded = byId('view-data').textContent?.trim() ?? '';
  if (embedded !== '') {
    draw(JSON.parse(embedded) as ViewData);
    page.note.hidden = false;
  } else if (window.parent !== window) {
    say('Connecting to the host…');
    hosted().catch((err: Error) => say(`The host did not start the view: ${err.message}`));
  } else {
    say('This page shows modes when an MCP host opens it, or when roo-modes-server modes --html writes it with the modes inside.');
  }
}

start();
