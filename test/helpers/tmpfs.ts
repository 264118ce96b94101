import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { engine } from './test-database.js';

/**
 * A small disk of its own for a test that must fill one: a tmpfs, which needs root (CI runs as
 * root). Resolves to the fresh mount point, or undefined where mounting is not allowed.
 */
export function mountTmpfs(megabytes = 128): string | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-small-disk-'));
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir], { stdio: 'ignore' }).status === 0) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  return undefined;
}

export function unmount(dir: string): void {
  spawnSync('umount', [dir]);
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Whether an embedded-engine test can mount a tmpfs here: tried, and let go at once (each suite
 * mounts its own in beforeAll). Where it cannot, says so in one line, naming what is skipped.
 */
export function canMountTmpfs(skipped: string): boolean {
  if (engine !== 'embedded') return false;
  const probe = mountTmpfs();
  if (probe) unmount(probe);
  else console.log(`${skipped}: skipped, a tmpfs cannot be mounted here (not root)`);
  return probe !== undefined;
}
