// The result rows of the bench and the printed table: ours beside the floor and the SDK peer, each
// ratio judged against its own target. Formats numbers only; never measures or spawns anything.

/**
 * One table row. `ours`/`floor`/`sdk` are display strings; `ratio` (ours ÷ floor) and `sdkRatio`
 * (ours ÷ SDK peer) numbers or null; `pass`/`sdkPass` true, false or null (not judged) against
 * `target`/`sdkTarget`; `keys` the key=value pairs this row contributes.
 */
export function row(figure, { ours, floor = '—', ratio = null, target = '—', pass = null, sdk = '—', sdkRatio = null, sdkTarget = '—', sdkPass = null, keys = {} }) {
  return { figure, ours, floor, ratio, target, pass, sdk, sdkRatio, sdkTarget, sdkPass, keys };
}

export const ms = (v) => `${v.toFixed(v < 10 ? 2 : 1)} ms`;
export const kb = (bytes) => `${(bytes / 1024).toFixed(2)} KB`;
export const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
export const round = (v, digits = 3) => Number(v.toFixed(digits));
const times = (r) => (r === null ? '—' : `${r.toFixed(2)}×`);

/** A row's verdict: every judged target must hold; a row with none is information. */
export function verdict(r) {
  const judged = [r.pass, r.sdkPass].filter((p) => p !== null);
  return judged.length === 0 ? null : judged.every(Boolean);
}

export function printTable(rows) {
  const withSdk = rows.some((r) => r.sdk !== '—');
  const head = ['figure', 'ours', ...(withSdk ? ['SDK peer'] : []), 'floor', '÷ floor', 'target', ...(withSdk ? ['÷ SDK', 'target vs SDK'] : []), 'result'];
  const cells = rows.map((r) => {
    const v = verdict(r);
    return [
      r.figure, r.ours, ...(withSdk ? [r.sdk] : []), r.floor, times(r.ratio), r.target,
      ...(withSdk ? [times(r.sdkRatio), r.sdkTarget] : []), v === null ? 'info' : v ? 'PASS' : 'FAIL',
    ];
  });
  const width = head.map((h, i) => Math.max(h.length, ...cells.map((c) => [...c[i]].length)));
  const line = (c) => c.map((v, i) => v + ' '.repeat(width[i] - [...v].length)).join(' | ');
  const out = [line(head), width.map((w) => '-'.repeat(w)).join('-|-'), ...cells.map(line)];
  process.stdout.write(`${out.join('\n')}\n`);
}
