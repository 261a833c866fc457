import net from 'node:net';

/**
 * A port nothing listens on, for a server started next. Linux hands a port that was just bound and closed to the next
 * bind to port 0 again soon, which is how the Temporal CLI picks its internal services' ports: a server of ours and
 * one of those could then race for it. A connection that the listening side closes first leaves the port in
 * TIME_WAIT for a minute, during which the kernel gives it to no bind to port 0, while a server that asks for it by
 * number still gets it (Node, PostgreSQL and Go listen with SO_REUSEADDR). The Temporal CLI reserves its own the
 * same way (its devserver/freeport.go).
 */
export async function freePort(): Promise<number> {
  const srv = net.createServer((accepted) => accepted.end());
  srv.unref();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', resolve);
  });
  const { port } = srv.address() as net.AddressInfo;
  try {
    await new Promise<void>((resolve) => {
      const client = net.connect({ port, host: '127.0.0.1' });
      client.unref();
      // the server ends first; the client answers its FIN, and the server's side of the connection waits in TIME_WAIT
      client.once('end', () => client.end());
      client.once('close', () => resolve());
      client.once('error', () => resolve());
    });
  } finally {
    await new Promise<void>((resolve) => srv.close(() => resolve()));
  }
  return port;
}

export async function isPortOpen(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host });
    const done = (open: boolean) => {
      sock.destroy();
      resolve(open);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string, intervalMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
