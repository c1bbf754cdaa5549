// The README is the first page a newcomer reads and docs/ holds the rest, so every relative link
// between them must land: the file must exist and a #fragment must name a heading (as GitHub and
// npm number them) or an explicit anchor in that file. The README also stays short enough to read
// to the end and points at every page of docs/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = readdirSync(join(REPO, 'docs')).filter((n) => n.endsWith('.md')).sort().map((n) => `docs/${n}`);
const PAGES = ['README.md', ...DOCS];
const README_MAX_LINES = 250;

/** The text outside fenced code blocks, line numbers kept (a fence's lines become empty). */
function prose(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === null && open) { fence = open[1]!; return ''; }
    if (fence !== null) { if (line.trim().startsWith(fence)) fence = null; return ''; }
    return line;
  });
}

/** GitHub's anchor for a heading: its text lower-cased, punctuation dropped, spaces made hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page offers: its headings (repeats numbered -1, -2, … as GitHub does) and explicit ids. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(markdown)) {
    const h = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]!);
  }
  return out;
}

interface Link { page: string; line: number; target: string }

/** Relative links of a page (inline code and fenced blocks left out), with the line they sit on. */
function relativeLinks(page: string): Link[] {
  const out: Link[] = [];
  prose(readFileSync(join(REPO, page), 'utf8')).forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, '');
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      out.push({ page, line: i + 1, target });
    }
  });
  return out;
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(page: string): Set<string> {
  let a = anchorCache.get(page);
  if (!a) { a = anchors(readFileSync(join(REPO, page), 'utf8')); anchorCache.set(page, a); }
  return a;
}

test('the anchor rule gives the anchors GitHub gives these headings', () => {
  assert.equal(slug('5. Use your modes in Claude Code, VS Code, Cursor, OpenCode, Kilo and Gemini CLI'),
    '5-use-your-modes-in-claude-code-vs-code-cursor-opencode-kilo-and-gemini-cli');
  assert.equal(slug("Other agents' tool names in `validate_tool_use`"), 'other-agents-tool-names-in-validate_tool_use');
  assert.equal(slug('`serve --http`'), 'serve---http');
  assert.equal(slug('The modes view (MCP Apps)'), 'the-modes-view-mcp-apps');
  assert.equal(slug('Claude Code: a plugin, and a marketplace for the team'), 'claude-code-a-plugin-and-a-marketplace-for-the-team');
  const twice = anchors('# A\n## Setup\n```\n# not a heading\n```\n### Setup\n<a id="kept"></a>\n');
  assert.deepEqual([...twice].sort(), ['a', 'kept', 'setup', 'setup-1']);
});

test('every relative link in README.md and docs/*.md names a file that exists, and a heading in it', () => {
  const broken: string[] = [];
  let withFragment = 0;
  const links = PAGES.flatMap(relativeLinks);
  for (const { page, line, target } of links) {
    const [path, fragment] = target.split('#', 2) as [string, string | undefined];
    const file = path === '' ? page : posix.normalize(posix.join(posix.dirname(page), decodeURI(path)));
    const where = `${page}:${line}: ${target}`;
    if (file.startsWith('../') || !existsSync(join(REPO, file))) { broken.push(`${where} (no file ${file})`); continue; }
    if (fragment === undefined) continue;
    withFragment++;
    if (!file.endsWith('.md') || statSync(join(REPO, file)).isDirectory()) { broken.push(`${where} (a fragment into a file that is not Markdown)`); continue; }
    if (!anchorsOf(file).has(decodeURIComponent(fragment))) broken.push(`${where} (no heading #${fragment} in ${file})`);
  }
  assert.deepEqual(broken, []);
  assert.ok(links.length > 40 && withFragment > 10, `the check saw ${links.length} links, ${withFragment} with a fragment`);
});

test(`README.md has at most ${README_MAX_LINES} lines and links to every page of docs/`, () => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const lines = readme.endsWith('\n') ? readme.split('\n').length - 1 : readme.split('\n').length;
  assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; the rest belongs in docs/`);
  const linked = new Set(relativeLinks('README.md').map((l) => l.target.split('#')[0]));
  assert.deepEqual(DOCS.filter((d) => !linked.has(d)), [], 'pages of docs/ the README does not link to');
});
