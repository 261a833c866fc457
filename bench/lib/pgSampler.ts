/**
 * A sampling profiler for PostgreSQL: every `intervalMs` it reads pg_stat_activity and counts, per statement, the
 * client backends running it (or sitting idle inside a transaction, which is time the client spends between
 * statements). Samples × interval approximate backend-seconds per statement; with two backends busy at once (two
 * chunk activities) the sum exceeds the wall time.
 */
import { sql, type Db } from '../../db/pool';

export interface PgProfile {
  intervalMs: number;
  samples: number;
  /** label → backend-seconds, largest first */
  seconds: Array<{ label: string; seconds: number }>;
}

/** Short names for the statements the import and etl activities run; anything else is its first words. */
const NAMES: Array<[RegExp, string]> = [
  [/^SELECT row_no, .* FROM "?stg_/i, 'read staging chunk (SELECT … FROM stg_* ORDER BY row_no LIMIT)'],
  [/^INSERT INTO import_src/i, 'insert validated rows into import_src (unnest)'],
  [/^INSERT INTO import_errors/i, 'insert import_errors'],
  [/first_value\(row_no\)/i, 'drop duplicate keys (window over import_src)'],
  [/^ANALYZE import_src/i, 'ANALYZE import_src'],
  [/^DELETE FROM "?(\w+)"? t WHERE NOT EXISTS \(SELECT 1 FROM import_src/i, 'apply: replace delete'],
  [/^UPDATE "?(\w+)"? t SET .* FROM import_src/i, 'apply: UPDATE target FROM import_src'],
  [/^INSERT INTO "?(\w+)"? .*FROM import_src/i, 'apply: INSERT INTO target SELECT FROM import_src'],
  [/^SELECT count\(\*\)::int FROM import_src/i, 'apply: count matches'],
  [/WITH keys AS \(\s*SELECT DISTINCT item_id, site_id FROM demand_history/i, 'etl plan: cut series into chunks'],
  [/^SELECT date_trunc\('week', max\(ds\)\)/i, 'etl plan: last demand week'],
  [/^SELECT item_id, site_id, ds, qty FROM demand_history/i, 'etl chunk: load demand'],
  [/^DELETE FROM series_weekly/i, 'etl chunk: clear the chunk\'s key span'],
  [/^UPDATE series SET n_observations = NULL/i, 'etl chunk: reset statistics of series without demand'],
  [/^INSERT INTO series_weekly/i, 'etl chunk: insert weekly rows (unnest)'],
  [/^INSERT INTO series \(/i, 'etl chunk: upsert series statistics'],
  [/^INSERT INTO job_logs|pg_notify/i, 'job log line'],
  [/^(UPDATE|SELECT .* FROM) jobs/i, 'job row'],
];

export function labelOf(query: string): string {
  const q = query.replace(/\s+/g, ' ').trim();
  for (const [re, name] of NAMES) if (re.test(q)) return name;
  return q.split(' ').slice(0, 6).join(' ').slice(0, 60);
}

export class PgSampler {
  private readonly counts = new Map<string, number>();
  private samples = 0;
  private running = true;
  private readonly loop: Promise<void>;

  constructor(private readonly db: Db, private readonly intervalMs = 250) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const t0 = Date.now();
      try {
        const rows = (await this.db.any(sql.unsafe`
          SELECT state, query FROM pg_stat_activity
          WHERE backend_type = 'client backend' AND datname = current_database() AND pid <> pg_backend_pid()
            AND state IN ('active', 'idle in transaction') AND query NOT LIKE '%pg_stat_activity%'`)) as Array<{ state: string; query: string }>;
        this.samples += 1;
        for (const r of rows) {
          const label = r.state === 'active' ? labelOf(r.query) : 'idle in transaction (client working between statements)';
          this.counts.set(label, (this.counts.get(label) ?? 0) + 1);
        }
      } catch {
        /* the pool is closing */
      }
      await new Promise((r) => setTimeout(r, Math.max(0, this.intervalMs - (Date.now() - t0))));
    }
  }

  async stop(): Promise<PgProfile> {
    this.running = false;
    await this.loop;
    const seconds = [...this.counts].map(([label, n]) => ({ label, seconds: (n * this.intervalMs) / 1000 })).sort((a, b) => b.seconds - a.seconds);
    return { intervalMs: this.intervalMs, samples: this.samples, seconds };
  }
}
