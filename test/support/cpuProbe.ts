import fs from 'node:fs';

/**
 * With TEST_CPU_REPORT=<file>, appends one JSON line per test file: the CPU seconds of the jest worker and of the
 * child processes it waited for (schemathesis, a launched stack) while the file ran, beside its wall time. Unlike
 * wall time, these do not grow when the machine is busy with something else, so they find the suites that cost
 * the run most even on a loaded machine. PostgreSQL's and Temporal's share is not in them: the global teardown adds
 * a line for each server (test/support/serverCpu.ts).
 */
const report = process.env.TEST_CPU_REPORT;

/** utime, stime, cutime, cstime of this process, in seconds (Linux /proc; own CPU only elsewhere). */
function cpuSeconds(): { own: number; children: number } {
  try {
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    const tick = 100; // USER_HZ on Linux
    return { own: (Number(fields[11]) + Number(fields[12])) / tick, children: (Number(fields[13]) + Number(fields[14])) / tick };
  } catch {
    const u = process.cpuUsage();
    return { own: (u.user + u.system) / 1e6, children: 0 };
  }
}

if (report) {
  // read before the test file is required, so that loading its modules counts
  const start = cpuSeconds();
  const wallStart = Date.now();
  afterAll(() => {
    const end = cpuSeconds();
    const line = {
      file: expect.getState().testPath,
      cpu_s: Math.round((end.own - start.own) * 10) / 10,
      children_cpu_s: Math.round((end.children - start.children) * 10) / 10,
      wall_s: Math.round((Date.now() - wallStart) / 100) / 10,
    };
    fs.appendFileSync(report, `${JSON.stringify(line)}\n`);
  });
}
