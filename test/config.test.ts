import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      logLevel: 'info',
      databaseUrl: undefined,
      redisUrl: undefined,
    });
    expect(config.dataDir).toBe(path.resolve('./data'));
    expect(config.publicUrl).toBe('http://127.0.0.1:3000');
  });

  it('reads every documented variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      REDFLAG_DATA_DIR: '/var/lib/redflag',
      DATABASE_URL: 'postgres://u@db:5432/redflag',
      REDIS_URL: 'redis://cache:6379',
      REDFLAG_MASTER_KEY: 'a2V5',
      REDFLAG_PUBLIC_URL: 'https://redflag.example.ng/',
      LOG_LEVEL: 'warn',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      dataDir: '/var/lib/redflag',
      databaseUrl: 'postgres://u@db:5432/redflag',
      redisUrl: 'redis://cache:6379',
      masterKey: 'a2V5',
      publicUrl: 'https://redflag.example.ng',
      logLevel: 'warn',
    });
  });

  it('refuses values it cannot use, naming the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT must be an integer/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
  });
});
