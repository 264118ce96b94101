import fs from 'node:fs';
import net from 'node:net';
import { isDatabaseUnavailable } from '../../db/unavailable.js';
import { AppError, ERROR_STATUS, type ErrorCode, type FieldError } from '../../http/errors.js';

/**
 * The embedded database can be held by one process only, so while the server runs, administration
 * commands reach it through a Unix socket in the data directory. The socket file is mode 0600:
 * only the user who runs the server can connect, and that is the authentication.
 *
 * Protocol: one JSON line each way per connection.
 *   → {"command":"company.create","args":{...}}
 *   ← {"ok":true,"result":{...}}  |  {"ok":false,"error":{"code":"NOT_FOUND","message":"..."}}
 */
const MAX_REQUEST_BYTES = 64 * 1024;
/** Unix socket paths are limited to 107 bytes on Linux (104 on macOS). */
export const MAX_SOCKET_PATH_BYTES = 103;

interface ControlLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

type Handler = (command: string, args: unknown) => Promise<unknown>;

function reply(socket: net.Socket, body: unknown): void {
  socket.end(`${JSON.stringify(body)}\n`);
}

function failure(error: unknown, log: ControlLog, command: string) {
  if (error instanceof AppError && error.status < 500) {
    return {
      ok: false,
      error: { code: error.code, message: error.message, ...(error.details.errors ? { errors: error.details.errors } : {}) },
    };
  }
  // The database away or the disk under its reserve: the operator at the socket is told so, not "internal".
  if (isDatabaseUnavailable(error)) {
    log.warn({ err: error, command }, 'control command refused: database unavailable');
    return { ok: false, error: { code: 'UNAVAILABLE', message: (error as Error).message } };
  }
  log.error({ err: error, command }, 'control command failed');
  return { ok: false, error: { code: 'INTERNAL', message: 'Internal server error; see the server log' } };
}

export async function startControlSocket(options: {
  socketPath: string;
  handle: Handler;
  log: ControlLog;
}): Promise<{ close(): Promise<void> }> {
  const { socketPath, handle, log } = options;
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    throw new Error(`The control socket path ${socketPath} is too long for a Unix socket; use a shorter REDFLAG_DATA_DIR`);
  }
  // The caller holds the data directory lock, so a socket file left here belongs to a dead process.
  fs.rmSync(socketPath, { force: true });

  const server = net.createServer((socket) => {
    let buffered = '';
    socket.setEncoding('utf8');
    socket.setTimeout(30_000, () => socket.destroy());
    socket.on('error', () => {});
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.length > MAX_REQUEST_BYTES) {
        socket.removeAllListeners('data');
        reply(socket, { ok: false, error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request too large' } });
        return;
      }
      const newline = buffered.indexOf('\n');
      if (newline === -1) return;
      socket.removeAllListeners('data');
      let request: { command?: unknown; args?: unknown };
      try {
        request = JSON.parse(buffered.slice(0, newline));
      } catch {
        reply(socket, { ok: false, error: { code: 'MALFORMED_JSON', message: 'The request is not valid JSON' } });
        return;
      }
      const command = typeof request.command === 'string' ? request.command : '';
      handle(command, request.args ?? {}).then(
        (result) => reply(socket, { ok: true, result }),
        (error: unknown) => reply(socket, failure(error, log, command)),
      );
    });
  });

  // Created with no access for group and others from the first moment, then made explicit.
  const umask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    process.umask(umask);
  }
  fs.chmodSync(socketPath, 0o600);
  log.info({ socket: socketPath }, 'administration commands accepted on the control socket');

  return {
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        fs.rmSync(socketPath, { force: true });
      });
    },
  };
}

/** Nobody listens on the socket: no server runs (or it is still starting). */
export class ControlSocketUnavailableError extends Error {}

function toError(error: { code?: unknown; message?: unknown; errors?: unknown }): Error {
  const message = typeof error.message === 'string' ? error.message : 'The server refused the command';
  if (typeof error.code === 'string' && error.code in ERROR_STATUS) {
    const errors = Array.isArray(error.errors) ? (error.errors as FieldError[]) : undefined;
    return new AppError(error.code as ErrorCode, message, errors ? { errors } : {});
  }
  return new Error(message);
}

export function sendControlCommand(socketPath: string, command: string, args: unknown, timeoutMs = 60_000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let received = '';
    let connected = false;
    socket.setEncoding('utf8');
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error('The server did not answer the command in time')));
    socket.on('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify({ command, args })}\n`);
    });
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected && (error.code === 'ENOENT' || error.code === 'ECONNREFUSED')) {
        reject(new ControlSocketUnavailableError(error.message));
      } else if (!connected && error.code === 'EACCES') {
        reject(new Error(`Permission denied on ${socketPath}: run the command as the user who runs the server`));
      } else {
        reject(error);
      }
    });
    socket.on('end', () => {
      try {
        const response = JSON.parse(received) as { ok?: boolean; result?: unknown; error?: Record<string, unknown> };
        if (response.ok) resolve(response.result);
        else reject(toError(response.error ?? {}));
      } catch {
        reject(new Error('The server sent an unreadable answer on the control socket'));
      }
    });
  });
}
