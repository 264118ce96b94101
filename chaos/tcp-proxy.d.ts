export type ProxyMode = 'pass' | 'refuse' | 'reset' | 'blackhole';

export interface TcpProxy {
  port: number;
  stats: { connections: number; bytesFromClients: number; bytesForwarded: number };
  readonly mode: ProxyMode;
  setMode(mode: ProxyMode): Promise<void>;
  close(): Promise<void>;
}

export function startTcpProxy(options: {
  port: number;
  targetPort: number;
  targetHost?: string;
  host?: string;
}): Promise<TcpProxy>;
