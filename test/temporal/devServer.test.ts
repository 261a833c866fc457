import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { openConnection } from '../../temporal/client';
import {
  devServerArgs,
  ensureSearchAttributes,
  findOrInstallTemporalCli,
  logTail,
  SEARCH_ATTRIBUTES,
  startDevServer,
  type DevServer,
} from '../../temporal/devServer';
import { freePort } from '../../lib/net';
import { scratchDirectory } from '../support/runDirectory';

const { IndexedValueType } = temporal.api.enums.v1;
const EXPECTED_TYPES = { Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD, Int: IndexedValueType.INDEXED_VALUE_TYPE_INT };

async function customAttributes(server: DevServer): Promise<Record<string, number>> {
  const connection = await openConnection(server.address, 10_000);
  try {
    const res = await connection.operatorService.listSearchAttributes({ namespace: server.namespace });
    return res.customAttributes;
  } finally {
    await connection.close();
  }
}

function expectAllRegistered(attrs: Record<string, number>): void {
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) {
    expect({ name, type: attrs[name] }).toEqual({ name, type: EXPECTED_TYPES[type] });
  }
}

describe('findOrInstallTemporalCli', () => {
  const saved = process.env.TEMPORAL_CLI_PATH;
  afterEach(() => {
    if (saved === undefined) delete process.env.TEMPORAL_CLI_PATH;
    else process.env.TEMPORAL_CLI_PATH = saved;
  });

  it('honours TEMPORAL_CLI_PATH and rejects a path that is not an executable', async () => {
    const cli = await findOrInstallTemporalCli();
    expect(fs.existsSync(cli)).toBe(true);
    process.env.TEMPORAL_CLI_PATH = cli;
    await expect(findOrInstallTemporalCli()).resolves.toBe(cli);
    process.env.TEMPORAL_CLI_PATH = path.join(os.tmpdir(), 'no-such-temporal');
    await expect(findOrInstallTemporalCli()).rejects.toThrow(/TEMPORAL_CLI_PATH=.*not an executable/);
  }, 120_000);
});

describe('devServerArgs', () => {
  const opts = { dataDir: '/data/temporal', port: 7233, uiPort: 8233, namespace: 'default', ui: false };
  it('keeps the state in a file of dataDir, or with inMemory (the test run\'s server) in memory only', () => {
    const onDisk = devServerArgs({ ...opts, inMemory: false });
    expect(onDisk.slice(onDisk.indexOf('--db-filename'), onDisk.indexOf('--db-filename') + 2)).toEqual(['--db-filename', '/data/temporal/temporal.db']);
    const inMemory = devServerArgs({ ...opts, inMemory: true });
    expect(inMemory).not.toContain('--db-filename');
    expect(inMemory).toEqual(onDisk.filter((a) => a !== '--db-filename' && a !== '/data/temporal/temporal.db'));
  });
});

describe('logTail', () => {
  it('keeps a panic\'s first lines ahead of the tail its goroutine dump fills', () => {
    const file = path.join(os.tmpdir(), `devserver-log-${process.pid}.log`);
    const dump = Array.from({ length: 40 }, (_, i) => `\tgo.temporal.io/server/frame${i}()`);
    fs.writeFileSync(file, ['{"level":"info","msg":"starting"}', 'panic: listen tcp 127.0.0.1:40001: bind: address already in use', '', 'goroutine 1 [running]:', ...dump].join('\n'));
    try {
      // the message and the panicking goroutine's top frames (16 lines), then the tail
      expect(logTail(file, 5).split('\n')).toEqual(['panic: listen tcp 127.0.0.1:40001: bind: address already in use', '', 'goroutine 1 [running]:', ...dump.slice(0, 13), '…', ...dump.slice(-5)]);
      // a panic inside the tail is not repeated, and a log without one is only its tail
      expect(logTail(file, 43).split('\n')).toEqual(['panic: listen tcp 127.0.0.1:40001: bind: address already in use', '', 'goroutine 1 [running]:', ...dump]);
      fs.writeFileSync(file, dump.join('\n'));
      expect(logTail(file, 2)).toBe(dump.slice(-2).join('\n'));
      expect(logTail(path.join(os.tmpdir(), 'no-such-devserver.log'))).toBe('(no log)');
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});

/**
 * A CLI whose first `failures` server starts panic the way the real one does when it loses a port race; every other
 * call, and the later starts, go to the real CLI. `starts()` counts the server starts it saw.
 */
function flakyCli(realCli: string, failures: number): { path: string; starts(): number } {
  const dir = scratchDirectory('planning-flaky-cli-');
  const counter = path.join(dir, 'starts');
  const file = path.join(dir, 'temporal');
  fs.writeFileSync(counter, '');
  fs.writeFileSync(
    file,
    `#!/bin/sh
if [ "$1" = server ]; then
  echo start >> '${counter}'
  if [ "$(wc -l < '${counter}')" -le ${failures} ]; then
    echo 'panic: runtime error: invalid memory address or nil pointer dereference'
    echo '[signal SIGSEGV: segmentation violation code=0x1 addr=0x20 pc=0x25e3a29]'
    exit 2
  fi
fi
exec '${realCli}' "$@"
`,
    { mode: 0o755 },
  );
  return { path: file, starts: () => fs.readFileSync(counter, 'utf8').split('\n').filter(Boolean).length };
}

describe('freePort', () => {
  it('leaves the port in TIME_WAIT, where no bind to port 0 gets it, and free for a server that asks for it', async () => {
    const port = await freePort();
    // /proc/net/tcp: local address as hex IP:port, state 06 is TIME_WAIT
    const timeWait = fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1).map((l) => l.trim().split(/\s+/)).filter((f) => f[3] === '06').map((f) => parseInt(f[1].split(':')[1], 16));
    expect(timeWait).toContain(port);
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    expect((server.address() as net.AddressInfo).port).toBe(port);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});

describe('startDevServer', () => {
  let dataDir: string;
  let port: number;
  let uiPort: number;
  let server: DevServer | undefined;

  beforeAll(async () => {
    dataDir = scratchDirectory('planning-temporal-');
    port = await freePort();
    uiPort = await freePort();
  });

  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts a real dev server with the five search attributes, again when the CLI panicked while starting', async () => {
    // the CLI's own race for its internal ports (temporal/devServer.ts): a first start that panics before it answers
    const realCli = await findOrInstallTemporalCli();
    const fake = flakyCli(realCli, 1);
    process.env.TEMPORAL_CLI_PATH = fake.path;
    try {
      server = await startDevServer({ dataDir, port, uiPort, ui: false });
    } finally {
      delete process.env.TEMPORAL_CLI_PATH;
    }
    expect(fake.starts()).toBe(2);
    expect(fs.readFileSync(path.join(dataDir, 'temporal.log'), 'utf8').match(/^panic: /gm)).toHaveLength(1);
    expect(server.owned).toBe(true);
    expect(server.address).toBe(`127.0.0.1:${port}`);
    expect(server.namespace).toBe('default');
    expectAllRegistered(await customAttributes(server));
    expect(fs.existsSync(path.join(dataDir, 'temporal.db'))).toBe(true);
    expect(fs.existsSync(path.join(dataDir, 'temporal.log'))).toBe(true);
  }, 120_000);

  it('gives up on a CLI that exits while starting three times, with its log', async () => {
    const fake = flakyCli(await findOrInstallTemporalCli(), 3);
    const failing = path.join(dataDir, 'failing');
    process.env.TEMPORAL_CLI_PATH = fake.path;
    try {
      const other = await freePort();
      await expect(startDevServer({ dataDir: failing, port: other, uiPort: await freePort(), ui: false })).rejects.toThrow(
        /^Temporal dev server exited with 2 \(attempt 3 of 3\)\. Last lines of .*temporal\.log:\npanic: runtime error: invalid memory address or nil pointer dereference/,
      );
    } finally {
      delete process.env.TEMPORAL_CLI_PATH;
    }
    expect(fake.starts()).toBe(3);
  }, 120_000);

  it('ensureSearchAttributes is idempotent', async () => {
    await ensureSearchAttributes(server!.address, server!.namespace);
    await ensureSearchAttributes(server!.address, server!.namespace);
    expectAllRegistered(await customAttributes(server!));
  }, 120_000);

  it('reuses a server that already answers on the port instead of spawning another', async () => {
    const again = await startDevServer({ dataDir: path.join(dataDir, 'unused'), port, uiPort, ui: false });
    expect(again.owned).toBe(false);
    await again.stop();
    expect(fs.existsSync(path.join(dataDir, 'unused'))).toBe(false);
    expectAllRegistered(await customAttributes(server!));
  }, 120_000);

  it('registers a missing namespace with the search attributes', async () => {
    await ensureSearchAttributes(server!.address, 'planning-extra');
    expectAllRegistered(await customAttributes({ ...server!, namespace: 'planning-extra' }));
  }, 120_000);

  it('keeps its state in dataDir across a stop and a second start', async () => {
    await server!.stop();
    server = undefined;
    server = await startDevServer({ dataDir, port, uiPort, ui: false, env: { GOMAXPROCS: '1' } });
    expect(server.owned).toBe(true);
    // the variables given are the server process's, beside this process's own
    const environ = fs.readFileSync(`/proc/${server.pid}/environ`, 'utf8').split('\0');
    expect(environ).toContain('GOMAXPROCS=1');
    expect(environ).toContain(`PATH=${process.env.PATH}`);
    expectAllRegistered(await customAttributes(server));
    // Nothing in the second start touches planning-extra, so finding it proves the SQLite file carried the state over.
    expectAllRegistered(await customAttributes({ ...server, namespace: 'planning-extra' }));
    await server.stop();
    server = undefined;
  }, 120_000);
});
