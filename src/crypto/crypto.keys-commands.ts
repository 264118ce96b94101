import fs from 'node:fs';
import { IDENTIFIER_LABELS } from '../identifiers/labels.js';
import { withCryptoCommand } from './crypto.command-support.js';
import { CryptoConfigError } from './errors.js';
import { KEY_REFRESH_MS } from './load-crypto.js';
import { type ReindexSummary, reindex } from './reindex.js';
import { keyFilePath, parseRootKey, replaceKeyFile } from './root-key.js';
import { resolveRootKey } from './root-key.source.js';
import { type RootRotationSummary, rotateRoot } from './root-rotation.js';

export interface RotateRootCommandSummary extends RootRotationSummary {
  /** The default key file now holding the new root (embedded engine, no key configured). */
  replacedKeyFile: string | undefined;
}

/** `crypto rotate-root --new-key-file <file>`: re-wraps the stored keys under the file's root key. */
export function rotateRootCommand(options: {
  newKeyFile: string;
  batchSize: number;
  json?: boolean;
}): Promise<RotateRootCommandSummary> {
  let text: string;
  try {
    text = fs.readFileSync(options.newKeyFile, 'utf8');
  } catch (error) {
    throw new CryptoConfigError(`Cannot read --new-key-file ${options.newKeyFile}: ${(error as Error).message}`);
  }
  const newRoot = parseRootKey(text, `--new-key-file ${options.newKeyFile}`);
  return withCryptoCommand('rotate-root', { json: options.json, unit: 'keys' }, async ({ config, database, progress }) => {
    const current = resolveRootKey(config, database.engine, true);
    // With no key configured on the embedded engine, the default key file is where the next start looks.
    const defaultFile =
      config.masterKey === undefined && config.masterKeyFile === undefined && database.engine === 'embedded'
        ? keyFilePath(config.dataDir)
        : undefined;
    let replacedKeyFile: string | undefined;
    const summary = await rotateRoot({
      db: database.db,
      currentRoot: current.key,
      newRoot,
      batchSize: options.batchSize,
      onStart: ({ total }) => progress.start(total),
      onProgress: (done) => progress.update(done),
      beforeFinish: () => {
        if (defaultFile === undefined) return;
        if (!current.key.equals(newRoot)) replaceKeyFile(defaultFile, newRoot);
        replacedKeyFile = defaultFile;
      },
    });
    return { ...summary, replacedKeyFile };
  });
}

export function describeRootRotation(summary: RotateRootCommandSummary): string {
  const lines = [
    `${summary.resumed ? 'Finished the interrupted root-key rotation' : 'Rotated the root key'}: ${summary.rewrapped} stored key(s) re-wrapped ` +
      `in ${(summary.durationMs / 1000).toFixed(1)} s; no sealed value changed. The old root key is now refused at start.`,
  ];
  if (summary.replacedKeyFile) lines.push(`The new root key replaced the key file ${summary.replacedKeyFile}.`);
  else
    lines.push(
      'Give every instance the new root key (REDFLAG_MASTER_KEY or the file named by REDFLAG_MASTER_KEY_FILE) before the next start; ' +
        'see README, "Encryption keys".',
    );
  return lines.join('\n');
}

/** `crypto reindex`: moves every blind index to a new version of its label's key. */
export function reindexCommand(options: {
  batchSize: number;
  labels?: string[];
  settleSeconds?: number;
  json?: boolean;
}): Promise<ReindexSummary> {
  const unknown = options.labels?.filter((label) => !(IDENTIFIER_LABELS as readonly string[]).includes(label)) ?? [];
  if (unknown.length > 0) {
    return Promise.reject(new Error(`--label must be among ${IDENTIFIER_LABELS.join(', ')}; got ${unknown.join(', ')}`));
  }
  return withCryptoCommand('reindex', { json: options.json, unit: 'identifiers' }, ({ database, crypto, progress }) =>
    reindex({
      db: database.db,
      crypto,
      labels: options.labels as never,
      batchSize: options.batchSize,
      // Instances on a shared server re-read the keys every KEY_REFRESH_MS; the embedded engine has no others.
      settleMs:
        options.settleSeconds !== undefined
          ? options.settleSeconds * 1000
          : database.engine === 'server'
            ? KEY_REFRESH_MS + 5_000
            : 0,
      onStart: ({ total }) => progress.start(total),
      onProgress: (done) => progress.update(done),
    }),
  );
}

export function describeReindex(summary: ReindexSummary): string {
  const moved = summary.labels.map((l) => `${l.label} v${l.from}→v${l.to}`).join(', ');
  const lines = [
    `${summary.resumed ? 'Finished the interrupted reindex' : 'Reindexed'} (${moved}): ${summary.reindexed} identifier(s) ` +
      `in ${(summary.durationMs / 1000).toFixed(1)} s.`,
  ];
  if (summary.failed > 0)
    lines.push(
      `${summary.failed} value(s) did not open: ${summary.failures.join(', ')}. Their labels keep the old key; the next crypto reindex retries them.`,
    );
  else if (summary.unfinished.length > 0)
    lines.push(`Rows were written under the old key meanwhile (${summary.unfinished.join(', ')}): run crypto reindex again.`);
  else lines.push('The old index keys are deleted.');
  return lines.join('\n');
}
