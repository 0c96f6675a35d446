// Child processes under a CPU-time limit. A hostile input can make a decoder spin (a truncated PNG looped by ffmpeg
// ran at ~100 % CPU for the job's full 300 s, issue 28): the kernel stops a process that has used its CPU seconds,
// whatever its wall clock says. prlimit (util-linux, on every Debian) sets RLIMIT_CPU for the one program; where it is
// missing the program runs as before, under its caller's wall-time limit alone.
import fs from 'node:fs';

const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => fs.existsSync(p));

/** The program and arguments that run `program` with at most `cpuSeconds` of CPU time. */
export function limitedCommand(program: string, args: string[], cpuSeconds: number): [string, string[]] {
  if (!PRLIMIT) return [program, args];
  const seconds = Math.max(1, Math.ceil(cpuSeconds));
  return [PRLIMIT, [`--cpu=${seconds}`, '--', program, ...args]];
}
