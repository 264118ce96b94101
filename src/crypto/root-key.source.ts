import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Engine } from '../db/database.js';
import { CryptoConfigError } from './errors.js';
import { createKeyFile, keyFilePath, parseRootKey, readKeyFile } from './root-key.js';

export interface ResolvedRoot {
  key: Buffer;
  /** Names the key's origin in messages. */
  source: string;
  /** The file it was read from (REDFLAG_MASTER_KEY_FILE or the default key file), re-read after a rotation. */
  file: string | undefined;
  /** Custody problems (production only): the key file beside the data, or readable by others. */
  warnings: string[];
}

type RootConfig = Pick<Config, 'masterKey' | 'dataDir'> & Partial<Pick<Config, 'masterKeyFile' | 'production'>>;

/**
 * REDFLAG_MASTER_KEY, else REDFLAG_MASTER_KEY_FILE (a container secret or service credential,
 * outside the data directory), else on the embedded engine `<data dir>/master.key`, created on first start.
 */
export function resolveRootKey(config: RootConfig, engine: Engine, databaseHasKeys: boolean): ResolvedRoot {
  if (config.masterKey !== undefined) {
    return {
      key: parseRootKey(config.masterKey, 'REDFLAG_MASTER_KEY'),
      source: 'REDFLAG_MASTER_KEY',
      file: undefined,
      warnings: [],
    };
  }
  if (config.masterKeyFile !== undefined) {
    const key = readKeyFile(config.masterKeyFile);
    if (!key) throw new CryptoConfigError(`REDFLAG_MASTER_KEY_FILE names ${config.masterKeyFile}, which does not exist`);
    const file = config.masterKeyFile;
    return { key, source: `The key file ${file}`, file, warnings: custodyWarnings(file, config) };
  }
  if (engine === 'server') {
    throw new CryptoConfigError(
      'REDFLAG_MASTER_KEY or REDFLAG_MASTER_KEY_FILE must be set when DATABASE_URL is used: every instance sharing the database needs the same root key ' +
        '(generate one with: npx redflag crypto new-master-key)',
    );
  }
  const file = keyFilePath(config.dataDir);
  const existing = readKeyFile(file);
  const resolved = (key: Buffer): ResolvedRoot => ({
    key,
    source: `The key file ${file}`,
    file,
    warnings: custodyWarnings(file, config),
  });
  if (existing) return resolved(existing);
  if (databaseHasKeys) {
    throw new CryptoConfigError(
      `The key file ${file} is missing, but this database holds values encrypted under it. ` +
        'Restore the file from a backup, or set REDFLAG_MASTER_KEY to the key that was used.',
    );
  }
  return resolved(createKeyFile(file));
}

/** The root key in the file it came from, read again; undefined when it did not come from a file or is unchanged. */
export function rereadRootKey(config: RootConfig, root: ResolvedRoot): Buffer | undefined {
  if (root.file === undefined || config.masterKey !== undefined) return undefined;
  const key = readKeyFile(root.file);
  return key && !key.equals(root.key) ? key : undefined;
}

/**
 * A stolen backup of the data directory should not hold the key that opens it, and no other
 * account on the machine should read it. Warnings rather than refusals: a development machine and
 * the embedded default keep working, production says what to fix.
 */
function custodyWarnings(file: string, config: RootConfig): string[] {
  if (!config.production) return [];
  const warnings: string[] = [];
  const relative = path.relative(path.resolve(config.dataDir), path.resolve(file));
  if (!relative.startsWith('..') && !path.isAbsolute(relative)) {
    warnings.push(
      `The root key file ${file} is inside the data directory ${config.dataDir}: a copy of the data directory then holds the key that opens it. ` +
        'Move the key elsewhere and set REDFLAG_MASTER_KEY_FILE (README, "Encryption keys").',
    );
  }
  const mode = fs.statSync(file).mode;
  if ((mode & 0o077) !== 0) {
    warnings.push(`The root key file ${file} is readable by group or others (mode ${(mode & 0o777).toString(8)}): chmod 600 it.`);
  }
  return warnings;
}
