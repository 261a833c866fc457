import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

/** utime+stime of a process and of its children it has reaped, plus those of its live children, in seconds (Linux). */
function processTreeSeconds(pid: number): number {
  const read = (p: number) => {
    try {
      const f = fs.readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return { ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), reaped: Number(f[13]) + Number(f[14]) };
    } catch {
      return undefined;
    }
  };
  const root = read(pid);
  if (!root) return 0;
  let ticks = root.own + root.reaped;
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const p = read(Number(name));
    if (p && p.ppid === pid) ticks += p.own + p.reaped;
  }
  return ticks / 100;
}

/**
 * With TEST_CPU_REPORT, the global teardown appends the servers' share, which the per-file lines cannot see: the
 * CPU seconds of the run's PostgreSQL (postmaster and backends) and Temporal dev server, with the connections the
 * run opened and the tenants it made, per jest worker database.
 */
export async function reportServerCpu(report: string, runDir: string, temporalPid: number | undefined): Promise<void> {
  const lines: object[] = [];
  const pidFile = path.join(runDir, 'pg', 'postmaster.pid');
  if (fs.existsSync(pidFile) && process.env.DATABASE_URL) {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    const client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ datname: string; sessions: number }>(
        "SELECT datname, sessions::int FROM pg_stat_database WHERE datname LIKE current_database() || '%' ORDER BY datname");
      const databases: Record<string, { sessions: number; tenants: number }> = {};
      for (const r of rows) {
        const db = new Client({ connectionString: Object.assign(new URL(process.env.DATABASE_URL), { pathname: `/${r.datname}` }).toString() });
        await db.connect();
        const tenants = Number((await db.query("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 't\\_%'")).rows[0].count);
        await db.end();
        databases[r.datname] = { sessions: r.sessions, tenants };
      }
      lines.push({ server: 'postgresql', cpu_s: Math.round(processTreeSeconds(pid) * 10) / 10, databases });
    } finally {
      await client.end();
    }
  }
  if (temporalPid) lines.push({ server: 'temporal', cpu_s: Math.round(processTreeSeconds(temporalPid) * 10) / 10 });
  fs.appendFileSync(report, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
}
