// A short digest of what a catalogue's modes say, so servers sharing a store can tell whether they
// (or a client told by one of them) have seen the same catalogue. It never reads a file.
import { createHash } from 'node:crypto';
import { fingerprint, type Catalogue } from './catalogue.js';

const DIGESTS = new WeakMap<Catalogue, string>();

/**
 * Equal on every server that loaded the same mode files, whatever folder they are mounted at (the
 * files' paths are left out); computed once per loaded catalogue.
 */
export function catalogueDigest(cat: Catalogue): string {
  let d = DIGESTS.get(cat);
  if (d === undefined) {
    const h = createHash('sha256');
    for (const m of cat.modes) h.update(JSON.stringify([m.slug, fingerprint({ ...m, file: undefined })])).update('\n');
    d = h.digest('hex').slice(0, 32);
    DIGESTS.set(cat, d);
  }
  return d;
}
