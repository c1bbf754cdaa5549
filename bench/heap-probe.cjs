// Preloaded into a benchmarked peer (ours or the SDK peer, `node --expose-gc --require`): on SIGUSR2
// it runs full GCs and prints the heap still in use to stderr. Never writes to stdout (the protocol's).
process.on('SIGUSR2', () => {
  global.gc(); global.gc();
  process.stderr.write(`bench-heap ${process.memoryUsage().heapUsed}\n`);
});
