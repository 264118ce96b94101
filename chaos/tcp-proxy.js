// A TCP proxy for fault injection: put it between the service and PostgreSQL or Redis, then make
// the link refuse, reset or blackhole. Used by the tests and by `npm run chaos`; never by the service.
import net from 'node:net';

/**
 * @param {{ port: number, targetPort: number, targetHost?: string, host?: string }} options
 * Modes: 'pass' forwards; 'refuse' stops listening (connects get ECONNREFUSED) and resets every
 * connection; 'reset' resets every connection, open and new; 'blackhole' accepts and forwards
 * nothing either way (packets dropped). Leaving 'blackhole' resets the connections it swallowed,
 * as a peer's retransmission timeout would in the end.
 */
export async function startTcpProxy({ port, targetPort, targetHost = '127.0.0.1', host = '127.0.0.1' }) {
  let mode = 'pass';
  const pairs = new Set();
  const stats = { connections: 0, bytesFromClients: 0, bytesForwarded: 0 };

  const reset = (socket) => {
    if (!socket.destroyed) socket.resetAndDestroy();
  };
  const dropAll = () => {
    for (const pair of pairs) {
      reset(pair.client);
      reset(pair.upstream);
    }
    pairs.clear();
  };

  const server = net.createServer((client) => {
    stats.connections += 1;
    client.on('error', () => {});
    if (mode === 'reset') return reset(client);
    const upstream = mode === 'blackhole' ? null : net.connect(targetPort, targetHost);
    const pair = { client, upstream: upstream ?? new net.Socket() };
    pairs.add(pair);
    pair.upstream.on('error', () => reset(client));
    client.on('data', (chunk) => {
      stats.bytesFromClients += chunk.length;
      if (mode === 'pass' && upstream) {
        stats.bytesForwarded += chunk.length;
        upstream.write(chunk);
      }
    });
    upstream?.on('data', (chunk) => {
      if (mode === 'pass') client.write(chunk);
    });
    const close = () => {
      pairs.delete(pair);
      client.destroy();
      upstream?.destroy();
    };
    client.on('close', close);
    upstream?.on('close', close);
  });

  const listen = () =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen();

  return {
    port,
    stats,
    get mode() {
      return mode;
    },
    /** Switches the link; resolves once the new mode is in force. */
    async setMode(next) {
      const before = mode;
      mode = next;
      if (next === 'refuse' || next === 'reset' || before === 'blackhole') dropAll();
      if (next === 'refuse' && server.listening) await new Promise((resolve) => server.close(() => resolve()));
      if (next !== 'refuse' && !server.listening) await listen();
    },
    async close() {
      dropAll();
      if (server.listening) await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
