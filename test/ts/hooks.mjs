// Module loader hooks for the test processes (registered by test/ts/register.mjs): a relative
// `./x.js` that names a TypeScript file `./x.ts` resolves to it, and a `.ts` file loads as its
// compiled JavaScript from test/ts/cache.mjs. Its URL stays the .ts file's, so import.meta.url
// and every path a test derives from it are what they were under tsx.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cacheDir, compiledText } from './cache.mjs';

const dir = cacheDir();
const SWAPS = [['.js', '.ts'], ['.mjs', '.mts']];

export async function resolve(specifier, context, next) {
  if ((specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:')) && context.parentURL?.startsWith('file:')) {
    for (const [js, ts] of SWAPS) {
      if (!specifier.endsWith(js)) continue;
      const url = new URL(specifier, context.parentURL);
      if (existsSync(url)) break;
      const tsUrl = new URL(url.href.slice(0, -js.length) + ts);
      if (existsSync(tsUrl)) return { url: tsUrl.href, format: 'module', shortCircuit: true };
    }
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (url.startsWith('file:') && (url.endsWith('.ts') || url.endsWith('.mts'))) {
    const file = fileURLToPath(url);
    return { format: 'module', source: compiledText(dir, file, readFileSync(file, 'utf8')), shortCircuit: true };
  }
  return next(url, context);
}
