// Preloaded (`node -r bench/cpu-at-exit.cjs …`) into each process bench/hook-start.mjs times: at
// exit it prints the process's own user + system CPU in µs (from its start, Node's start-up included)
// as the last line of stderr, so a run's CPU is read on a machine whose wall times other work moves.
'use strict';
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  process.stderr.write(`\ncpu-us ${user + system}\n`);
});
