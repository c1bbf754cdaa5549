// Build step after tsc: assembles the modes view (MCP Apps) into one self-contained page,
// dist/app/modes-view.html: src/app/view/page.html with style.css and the view's modules inlined.
//
// Why one file: an MCP Apps host loads the view as one HTML resource under a deny-by-default
// Content-Security-Policy, so the page may load nothing (no script, sheet, font or image file, no
// request) and must not need an exception. The modules tsc compiled into dist/.view are joined by
// bundle-hook.mjs's bundler (each becomes a function run on first use) inside one inline script.
// The build fails on anything that would load from elsewhere or break out of its element.
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from './bundle-hook.mjs';

const ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const SOURCE = join(ROOT, 'src', 'app', 'view');
const COMPILED = join(ROOT, 'dist', '.view');
export const OUT = join(ROOT, 'dist', 'app', 'modes-view.html');

export class ViewBuildError extends Error {}

/** What a page that loads nothing from anywhere never holds (checked on the assembled page too). */
export const LOADS = [
  [/<script\b[^>]*\bsrc\s*=/i, 'a script loaded from a file'],
  [/<link\b/i, 'a linked resource'],
  [/<(?:img|iframe|object|embed|audio|video|source)\b/i, 'an element that loads a resource'],
  [/@import\b/i, 'a style sheet import'],
  [/url\s*\(/i, 'a url() in a style'],
  [/\b(?:fetch|XMLHttpRequest|WebSocket|EventSource|importScripts|sendBeacon)\b/, 'a network request'],
  [/\bhttps?:\/\//i, 'an address on the web'],
];

/** The problems of a page that must load nothing: [] when it is self-contained. */
export function selfContainedProblems(html) {
  return LOADS.filter(([pattern]) => pattern.test(html)).map(([, what]) => what);
}

/** The page: the template with the style and the script in their places. */
export function assemble(template, css, js) {
  if (/<\/style/i.test(css)) throw new ViewBuildError('style.css holds "</style", which would end the style element');
  if (/<\/script|<!--/i.test(js)) throw new ViewBuildError('the view script holds "</script" or "<!--", which the page\'s parser would act on');
  for (const slot of ['/*STYLE*/', '/*SCRIPT*/']) {
    if (template.split(slot).length !== 2) throw new ViewBuildError(`page.html must hold ${slot} exactly once`);
  }
  const page = template.replace('/*STYLE*/', () => css.trim()).replace('/*SCRIPT*/', () => js.trim());
  const problems = selfContainedProblems(page);
  if (problems.length > 0) throw new ViewBuildError(`the page would load from elsewhere: ${problems.join('; ')}`);
  return page;
}

/** The compiled modules as one classic script (no module loader, nothing global left behind). */
export function viewScript(entry) {
  const { text } = bundle(entry, []);
  const body = text.split('\n').slice(1).join('\n'); // the bundler's own header line speaks of the hook
  return `// The modes view, built by src/build/app-view.mjs from src/app/view/; do not edit.\n(function (module) {\n${body}\n})({ exports: {} });`;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const js = viewScript(join(COMPILED, 'view', 'main.js'));
    const page = assemble(readFileSync(join(SOURCE, 'page.html'), 'utf8'), readFileSync(join(SOURCE, 'style.css'), 'utf8'), js);
    mkdirSync(dirname(OUT), { recursive: true });
    writeFileSync(OUT, page);
    rmSync(COMPILED, { recursive: true, force: true });
    process.stderr.write(`app-view: ${relative(process.cwd(), OUT)} (${Buffer.byteLength(page)} bytes)\n`);
  } catch (err) {
    process.stderr.write(`app-view: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
