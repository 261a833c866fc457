import { Client, Connection } from '@temporalio/client';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Keeps trying until the frontend answers getSystemInfo: the API and worker are often started together with the dev
 * server, whose gRPC port opens some seconds after the process does.
 */
export async function openConnection(address: string, timeoutMs = 60_000): Promise<Connection> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  do {
    // lazy + ensureConnected so a failed attempt's channel can be closed instead of left retrying in the background
    const connection = Connection.lazy({ address, connectTimeout: Math.max(1000, Math.min(5000, deadline - Date.now())) });
    try {
      await connection.ensureConnected();
      return connection;
    } catch (err) {
      lastError = err;
      await connection.close();
      await sleep(500);
    }
  } while (Date.now() < deadline);
  throw new Error(`Temporal at ${address} did not answer within ${timeoutMs} ms: ${(lastError as Error)?.message ?? lastError}`);
}

export async function connectTemporal(
  address: string,
  namespace: string,
  opts: { timeoutMs?: number } = {},
): Promise<{ connection: Connection; client: Client }> {
  const connection = await openConnection(address, opts.timeoutMs);
  return { connection, client: new Client({ connection, namespace }) };
}
