// Preloaded into a peer by the cold-start figure (`node --require`): when the process first writes
// to stdout (its first answer), it prints one stderr line `bench-cpu-at-answer <ms>` with the CPU
// (user + system, all threads) it used since it started. CPU is what a loaded machine disturbs
// least; wall time from spawn also counts the waits for a core. Never changes what is written.
const write = process.stdout.write;
let told = false;
process.stdout.write = function (...args) {
  if (!told) {
    told = true;
    const { user, system } = process.cpuUsage();
    process.stderr.write(`bench-cpu-at-answer ${(user + system) / 1000}\n`);
  }
  return write.apply(this, args);
};
