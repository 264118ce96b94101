import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number | undefined,
  ) {
    super(
      `The data directory ${dataDir} is in use by another Redflag process${pid === undefined ? '' : ` (pid ${pid})`}. ` +
        'Stop that process first; administration commands (redflag company/key/operator) reach a running server by themselves.',
    );
  }
}

/**
 * The lock is a listening Unix socket in Linux's abstract namespace, named after the data
 * directory. Only one process can bind a name, and the kernel frees it the moment its holder dies
 * — `kill -9` included — so a stale lock cannot exist and a recycled pid (always 1 in a container)
 * cannot matter. `redflag.lock` beside the data only says who holds it, for the message.
 */
function abstractName(dataDir: string): string {
  const real = fs.realpathSync(dataDir);
  return `\0redflag-data-dir-${createHash('sha256').update(real).digest('hex').slice(0, 40)}`;
}

/**
 * Elsewhere (macOS) a socket file in the directory: a dead holder leaves the file, but nothing
 * accepts on it, so a refused connection proves it stale.
 */
async function bindSocketFile(socketPath: string): Promise<net.Server | undefined> {
  const server = await bind(socketPath);
  if (server) return server;
  const stale = await new Promise<boolean>((resolve) => {
    const probe = net.connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(false);
    });
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
  if (!stale) return undefined;
  fs.rmSync(socketPath, { force: true });
  return bind(socketPath);
}

function bind(name: string): Promise<net.Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => socket.destroy());
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(undefined) : reject(error)));
    server.listen({ path: name, exclusive: true }, () => {
      // The lock must not keep the process alive on its own.
      server.unref();
      resolve(server);
    });
  });
}

/**
 * PGlite has no postmaster lock of its own: two processes opening one data directory would both
 * write to it and corrupt it. Resolves with the lock, or rejects DataDirLockedError naming the live holder.
 */
export async function lockDataDir(dataDir: string): Promise<{ release(): void }> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const ownerPath = path.join(dataDir, 'redflag.lock');
  const server =
    process.platform === 'linux'
      ? await bind(abstractName(dataDir))
      : await bindSocketFile(path.join(dataDir, 'redflag.lock.sock'));
  if (!server) throw new DataDirLockedError(dataDir, readOwner(ownerPath));
  fs.writeFileSync(ownerPath, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }), { mode: 0o600 });
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      fs.rmSync(ownerPath, { force: true });
      server.close();
    },
  };
}

function readOwner(ownerPath: string): number | undefined {
  try {
    const owner = JSON.parse(fs.readFileSync(ownerPath, 'utf8')) as { pid?: unknown };
    return typeof owner.pid === 'number' ? owner.pid : undefined;
  } catch {
    return undefined;
  }
}
