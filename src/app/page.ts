// The modes view's page as `npm run build` assembled it (dist/app/modes-view.html): read once for
// the ui:// resource, or with the data written in for `modes --html`. Never changes the built file.
import { readFile } from 'node:fs/promises';
import type { ViewData } from './view-data.js';

/** Where the build puts the page: dist/app/, named from the package root so the sources find it too. */
export const VIEW_PAGE = new URL('../../dist/app/modes-view.html', import.meta.url);

/** The empty data slot of the page; the static page fills it, the MCP view leaves it empty. */
export const DATA_SLOT = '<script type="application/json" id="view-data"></script>';

/** Reads the built page; a missing one is a build that did not run, said as such. */
export async function readViewPage(): Promise<string> {
  let html: string;
  try {
    html = await readFile(VIEW_PAGE, 'utf8');
  } catch (err) {
    throw new Error(`the modes view was not built (${(err as NodeJS.ErrnoException).code ?? 'unreadable'}: ${VIEW_PAGE.pathname}); run npm run build`);
  }
  if (!html.includes(DATA_SLOT)) throw new Error(`${VIEW_PAGE.pathname} has no data slot; run npm run build`);
  return html;
}

/**
 * The page with `data` in its slot: a page that needs no host. Every `<` is escaped, so no text of
 * a mode file can close the script element or open a comment inside it.
 */
export function staticPage(html: string, data: ViewData): string {
  const json = JSON.stringify(data).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  const filled = DATA_SLOT.replace('></script>', () => `>${json}</script>`);
  return html.replace(DATA_SLOT, () => filled);
}
