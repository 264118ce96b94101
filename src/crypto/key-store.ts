import { createHmac, randomBytes } from 'node:crypto';
import type { CryptoKeyRow, NewCryptoKeyRow } from './crypto-keys.repository.js';
import { SealedValueError } from './errors.js';
import { type RootMaterial, rootMaterial, unwrapKey, wrapKey } from './key-wrap.js';

/**
 * The stored key hierarchy (envelope encryption), unwrapped in memory:
 *
 *   root key ──HKDF──► KEK ──wraps──► check        (start-up recognises the root)
 *                               ├──► data/k1..kN  (AES-256-GCM data keys of the keyring)
 *                               ├──► index/<label>/<version> (blind-index HMAC keys)
 *                               ├──► url/1        (signs download URLs)
 *                               ├──► pseudonym/1  (per-company audit pseudonyms)
 *                               └──► evidence/1   (keyed hashes of evidence files)
 *
 * Every key below the root is random and stored wrapped in `crypto_keys`; `crypto rotate-root`
 * re-wraps these rows under a new root's KEK without touching any sealed value.
 */
export const CHECK_ROW = 'check';
export const URL_ROW = 'url/1';
export const PSEUDONYM_ROW = 'pseudonym/1';
export const EVIDENCE_ROW = 'evidence/1';
export const dataRowId = (keyId: string) => `data/${keyId}`;
export const indexRowId = (label: string, version: number) => `index/${label}/${version}`;
export const rootRowId = (rootId: Buffer) => `root/${rootId.toString('hex')}`;
export const retiredRootRowId = (rootId: Buffer) => `retired-root/${rootId.toString('hex')}`;

/** What the check row wraps: opening it proves the KEK, and so the root. */
const CHECK_VALUE = Buffer.from('redflag root check v2...........');

/** A data key's `encryption_keys.key_check`: it survives a root change, unlike a root-derived check. */
export function dataKeyCheck(key: Buffer): Buffer {
  return createHmac('sha256', key).update('redflag data key check v2').digest();
}

export interface IndexKey {
  version: number;
  key: Buffer;
}

export function wrappedRow(
  root: RootMaterial,
  row: { id: string; kind: NewCryptoKeyRow['kind']; label?: string; version?: number },
  key: Buffer,
): NewCryptoKeyRow {
  return {
    id: row.id,
    kind: row.kind,
    label: row.label ?? null,
    version: row.version ?? null,
    wrapped: wrapKey(root.kek, row.id, key),
    root_id: root.id,
  };
}

export function checkRow(root: RootMaterial): NewCryptoKeyRow {
  return wrappedRow(root, { id: CHECK_ROW, kind: 'check' }, CHECK_VALUE);
}

export const newKey = () => randomBytes(32);

/**
 * The KEKs this process can use: its own root's, plus any root that an unfinished `rotate-root`
 * wrapped under one it holds (during a rotation each root is stored wrapped under the other, so an
 * instance holding either reads every row).
 */
export function kekRing(root: RootMaterial, rows: readonly CryptoKeyRow[]): Map<string, Buffer> {
  const keks = new Map([[root.id.toString('hex'), root.kek]]);
  for (let changed = true; changed; ) {
    changed = false;
    for (const row of rows) {
      if (row.kind !== 'root' || keks.has(row.id.slice('root/'.length))) continue;
      const kek = keks.get(row.root_id.toString('hex'));
      const other = kek && unwrapKey(kek, row.id, row.wrapped);
      if (!other) continue;
      keks.set(row.id.slice('root/'.length), rootMaterial(other).kek);
      changed = true;
    }
  }
  return keks;
}

/** Opens one stored row with whichever held KEK wrapped it. */
export function unwrapRow(keks: ReadonlyMap<string, Buffer>, row: CryptoKeyRow): Buffer | undefined {
  const kek = keks.get(row.root_id.toString('hex'));
  return kek ? unwrapKey(kek, row.id, row.wrapped) : undefined;
}

/** Whether these rows' check opens under the root (or a root in rotation with it). */
export function rootOpensCheck(root: RootMaterial, rows: readonly CryptoKeyRow[]): boolean {
  const check = rows.find((row) => row.id === CHECK_ROW);
  const value = check && unwrapRow(kekRing(root, rows), check);
  return value?.equals(CHECK_VALUE) ?? false;
}

/** The unwrapped keys of one process; `sync` takes in rows added since (a rotation's new key, a reindex's new version). */
export class KeyStore {
  #root: RootMaterial;
  readonly #material = new Map<string, Buffer>();
  #index = new Map<string, IndexKey[]>();

  constructor(root: RootMaterial) {
    this.#root = root;
  }

  get root(): RootMaterial {
    return this.#root;
  }

  /** Switches to another root (re-read from the key file after a rotation) once it opens the check. */
  useRoot(root: RootMaterial): void {
    this.#root = root;
  }

  /** Unwraps every row not yet held; returns the ids it could not unwrap. Index versions follow the rows present. */
  sync(rows: readonly CryptoKeyRow[]): string[] {
    const keks = kekRing(this.#root, rows);
    const unreadable: string[] = [];
    for (const row of rows) {
      if (row.kind === 'root' || row.kind === 'retired-root' || this.#material.has(row.id)) continue;
      const key = unwrapRow(keks, row);
      if (key) this.#material.set(row.id, key);
      else unreadable.push(row.id);
    }
    const index = new Map<string, IndexKey[]>();
    for (const row of rows) {
      const key = this.#material.get(row.id);
      if (row.kind !== 'index' || !key || row.label === null || row.version === null) continue;
      const versions = index.get(row.label) ?? [];
      versions.push({ version: row.version, key });
      index.set(row.label, versions);
    }
    for (const versions of index.values()) versions.sort((a, b) => a.version - b.version);
    this.#index = index;
    return unreadable;
  }

  has(rowId: string): boolean {
    return this.#material.has(rowId);
  }

  /** A data key by key id; an id not (yet) known is a SealedValueError, never a guess. */
  encryptionKey(keyId: string): Buffer {
    const key = this.#material.get(dataRowId(keyId));
    if (!key) throw new SealedValueError('unknown-key', `No stored data key ${keyId}`);
    return key;
  }

  /** Live versions of each label's index key, oldest first; the last is the one rows are written with. */
  indexKeys(): ReadonlyMap<string, readonly IndexKey[]> {
    return this.#index;
  }

  key(rowId: string): Buffer {
    const key = this.#material.get(rowId);
    if (!key) throw new Error(`No stored key ${rowId}`);
    return key;
  }
}
