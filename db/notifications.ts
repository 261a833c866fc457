import pg from 'pg';
import { logger } from '../lib/logger';

type Listener = (payload: { schema: string; job_id: string; id: number }) => void;

/**
 * One LISTEN connection per API process for job log lines (db/jobs.ts appendLog sends them). Event streams
 * subscribe here instead of holding a database connection each; they also poll, so a lost notification only delays.
 */
export class JobLogNotifications {
  private client?: pg.Client;
  private connecting?: Promise<void>;
  private listeners = new Set<Listener>();

  constructor(private readonly databaseUrl: string) {}

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('notification', (msg) => {
      if (!msg.payload) return;
      try {
        const payload = JSON.parse(msg.payload);
        for (const l of this.listeners) l(payload);
      } catch (err) {
        logger.warn({ err }, 'bad job_log notification');
      }
    });
    client.on('error', (err) => {
      logger.warn({ err }, 'job log listener connection lost; streams fall back to polling until it reconnects');
      this.client = undefined;
      this.connecting = undefined;
    });
    await client.connect();
    await client.query('LISTEN job_log');
    this.client = client;
  }

  async subscribe(listener: Listener): Promise<() => void> {
    this.listeners.add(listener);
    if (!this.client) {
      this.connecting ??= this.connect().catch((err) => {
        this.connecting = undefined;
        logger.warn({ err }, 'job log listener could not connect; streams poll');
      });
      await this.connecting;
    }
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await this.client?.end().catch(() => undefined);
    this.client = undefined;
  }
}
