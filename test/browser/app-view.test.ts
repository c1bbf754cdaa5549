// The modes view in a real browser: headless Chromium shows it inside a host page built on the
// official @modelcontextprotocol/ext-apps AppBridge, connected to the built server in each era. The
// table shows every mode, a tried path gets the server's verdict, an edited .roomodes shows up, the
// host's theme and a narrow width are followed, and nothing is loaded from anywhere.
// Not in the default roots (Chromium takes seconds to start): node test/run.mjs test/browser
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from '../protocol/official-check.js';
import { loadOfficial, validateTranscript } from '../protocol/official-check.js';
import { browserTierMissing, openRig, type Era } from './host-rig.js';

const ROOMODES = `customModes:
  - slug: reviewer
    name: 🔍 Reviewer
    roleDefinition: You review changes.
    whenToUse: Use to review a change.
    groups:
      - read
      - - edit
        - fileRegex: \\.md$
          description: Review notes only
  - slug: broken
    name: Broken
    groups: [read, flying]
`;

const TESTER = `  - slug: tester
    name: 🧪 Tester
    roleDefinition: You write tests.
    groups: [read, command]
`;

const LIGHT = { theme: 'light', styles: { variables: { '--color-background-primary': '#fafaf7', '--color-text-primary': '#202124' } }, displayMode: 'inline', containerDimensions: { maxHeight: 6000 } };
const DARK = { theme: 'dark', styles: { variables: { '--color-background-primary': '#15171c', '--color-text-primary': '#e8eaed' } } };

const rowSlugs = `() => [...document.querySelectorAll('#grid tbody tr')].map((r) => r.dataset.slug)`;
/** Where the focus is in the table: [row's slug or "head", column], or null. */
const focused = `() => { const c = document.activeElement; if (!c || !c.closest('#grid')) return null; return [c.parentElement.dataset.slug ?? 'head', c.cellIndex]; }`;

for (const era of ['2025-11-25', '2026-07-28'] as const satisfies readonly Era[]) {
  test(`${era}: the view in a real host shows every mode, asks the server about a path, follows an edit, the host's theme and a narrow width`, { skip: browserTierMissing, timeout: 120_000 }, async (t) => {
    // The 2026-07-28 host shows it as get_mode_info's view: the mode asked about is marked.
    const tool = era === '2026-07-28' ? { name: 'get_mode_info', args: { mode_slug: 'reviewer' } } : { name: 'list_modes', args: {} };
    const rig = await openRig(t, era, ROOMODES, tool, LIGHT);
    const { until, key, cdp, page } = rig;

    // Every mode, as a row, and the groups as columns.
    assert.equal(await until<string>(`() => document.querySelectorAll('#grid tbody tr').length === 6 && 'ok'`, 'six rows'), 'ok');
    assert.deepEqual(await until<string[]>(rowSlugs, 'the slugs'), ['code', 'architect', 'ask', 'debug', 'orchestrator', 'reviewer']);
    assert.deepEqual(await until<string[]>(`() => [...document.querySelectorAll('#grid thead th')].map((c) => c.textContent)`, 'the head'),
      ['Mode', 'Slug', 'Source', 'read', 'edit', 'browser', 'command', 'mcp', 'modes']);
    const reviewer = await until<Record<string, string>>(`() => {
      const row = document.querySelector('#grid tr[data-slug="reviewer"]');
      return { icon: row.cells[0].querySelector('.icon').textContent, name: row.cells[0].querySelector('.name').textContent, source: row.cells[2].innerText.replace(/\\s+/g, ' '),
        edit: ['.yes', '.pattern', '.words'].map((q) => row.cells[4].querySelector(q).textContent).join(' '), editSaid: row.cells[4].querySelector('.sr').textContent,
        command: row.cells[6].textContent, current: row.getAttribute('aria-current') };
    }`, 'the reviewer row');
    assert.deepEqual({ ...reviewer, current: undefined }, {
      icon: '🔍', name: 'Reviewer', source: 'project .roomodes:2', edit: '✓ \\.md$ Review notes only', editSaid: 'edit only files matching ',
      command: '–no command', current: undefined,
    }, 'what the eye sees, and what a screen reader says beside it');
    assert.equal(reviewer.current, era === '2026-07-28' ? 'true' : null, 'the mode get_mode_info asked about is marked');
    assert.match(await until<string>(`() => !document.getElementById('problems').hidden && document.getElementById('problem-list').innerText`, 'the problems'),
      /^\.roomodes:11:5 broken: .*flying/);
    assert.equal(await until<string>(`() => getComputedStyle(document.documentElement).backgroundColor`, 'the host background'), 'rgb(250, 250, 247)');

    // The keyboard: one tab stop; arrows, End, Ctrl+Home; Enter on a mode takes it to the path box.
    await cdp.evaluate(rig.frame, `document.querySelector('#grid tbody tr th').focus()`);
    await key('ArrowRight'); await key('ArrowRight');
    assert.deepEqual(await until(focused, 'focus'), ['code', 2]);
    await key('ArrowDown');
    assert.deepEqual(await until(focused, 'focus'), ['architect', 2]);
    await key('End');
    assert.deepEqual(await until(focused, 'focus'), ['architect', 8]);
    await key('Home', 2 /* Ctrl */);
    assert.deepEqual(await until(focused, 'focus'), ['head', 0]);
    assert.equal(await until(`() => document.querySelectorAll('#grid [tabindex="0"]').length`, 'tab stops'), 1, 'one cell in the tab order');
    for (let i = 0; i < 6; i++) await key('ArrowDown');
    assert.deepEqual(await until(focused, 'focus'), ['reviewer', 0]);
    await key('Enter');
    assert.equal(await until(`() => document.activeElement.id === 'try-path' && document.getElementById('try-mode').value`, 'the path box'), 'reviewer');

    // A path typed and sent with Enter: the server's verdict, refused by the mode's pattern.
    await cdp.send('Input.insertText', { text: 'src/app.ts' }, page);
    assert.equal(await until(`() => document.getElementById('try-path').value`, 'the typed path'), 'src/app.ts');
    await key('Enter');
    const refused = await until<string>(`() => { const v = document.getElementById('verdict'); return v.classList.contains('no') && v.innerText; }`, 'a refusal');
    assert.match(refused, /^✗ Refused reviewer on src\/app\.ts: Tool 'write_to_file' in mode '🔍 Reviewer' can only edit files matching pattern: \\\.md\$ \(Review notes only\)\. Got: src\/app\.ts$/);
    await rig.screenshot(`app-view-${era}`);
    await cdp.evaluate(rig.frame, `document.getElementById('try-path').value = 'notes/review.md'; document.querySelector('#try button').click()`);
    assert.match(await until<string>(`() => { const v = document.getElementById('verdict'); return v.classList.contains('ok') && v.innerText; }`, 'an allowance'), /^✓ Allowed reviewer on notes\/review\.md: /);

    // The host's theme changes: the view follows its colours and scheme.
    await cdp.evaluate(page, `rmsContext(${JSON.stringify(DARK)})`);
    assert.equal(await until<string>(`() => document.documentElement.dataset.theme === 'dark' && getComputedStyle(document.documentElement).backgroundColor`, 'the dark host background'), 'rgb(21, 23, 28)');
    assert.equal(await until<string>(`() => getComputedStyle(document.documentElement).colorScheme`, 'scheme'), 'dark');
    await rig.screenshot(`app-view-${era}-dark`);

    // An edit of .roomodes: the server says so, the host passes it on, the view asks again.
    const before = rig.s.messages.length;
    writeFileSync(join(rig.project, '.roomodes'), ROOMODES + TESTER);
    await after(rig.s, before, 'notifications/resources/list_changed');
    await cdp.evaluate(page, 'rmsResourcesChanged()');
    assert.deepEqual(await until<string[]>(`() => { const s = (${rowSlugs})(); return s.includes('tester') && s; }`, 'the new mode'),
      ['code', 'architect', 'ask', 'debug', 'orchestrator', 'reviewer', 'tester']);

    // A narrow host: the page never scrolls sideways; the table does, inside its box, and the form stacks.
    const size = rig.hostEvent('size');
    await cdp.send('Emulation.setDeviceMetricsOverride', { width: 360, height: 900, deviceScaleFactor: 1, mobile: false }, page);
    assert.ok((await size).height > 0, 'the view told the host its new height');
    const narrow = await until<Record<string, unknown>>(`() => innerWidth < 360 && {
      page: document.documentElement.scrollWidth <= innerWidth, table: document.querySelector('.scroll').scrollWidth > document.querySelector('.scroll').clientWidth,
      sticky: getComputedStyle(document.querySelector('#grid tbody th')).position, form: getComputedStyle(document.querySelector('.fields')).flexDirection }`, 'the narrow layout');
    assert.deepEqual(narrow, { page: true, table: true, sticky: 'sticky', form: 'column' });
    await rig.screenshot(`app-view-${era}-narrow`);

    // Nothing went wrong in the view, and nothing was loaded but the page itself.
    assert.deepEqual(rig.viewErrors, []);
    assert.deepEqual(rig.urls.frame, [], 'the view asked for nothing once it was loaded');
    const viewHost = new URL(rig.pages.viewUrl).host;
    assert.deepEqual(rig.pages.requests.filter((r) => r.host === viewHost).map((r) => r.url), ['/view.html'], 'its origin served the page alone');
    const origins = new Set([...rig.urls.page, ...rig.urls.frame].map((u) => new URL(u).origin));
    assert.deepEqual([...origins].sort(), [new URL(rig.pages.hostUrl).origin, new URL(rig.pages.viewUrl).origin].sort());
    const verdict = validateTranscript(loadOfficial(era), rig.s.lines, rig.session.methodOf);
    assert.deepEqual(verdict.failures, [], `every line of the server is valid against the ${era} schema`);
  });
}
