import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PG_VERSIONS } from '../src/db/pglite-connection.js';

const root = path.join(__dirname, '..');
const require = createRequire(path.join(root, 'package.json'));

/** pg-protocol exports no package.json: find it from its entry point. */
function installedVersion(name: string): string {
  let dir = path.dirname(require.resolve(name));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
}

describe('the node-postgres versions the PGlite connection copies', () => {
  it('are pinned exactly in package.json, installed, and the ones the connection was written against', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    for (const [name, version] of Object.entries(PG_VERSIONS)) {
      expect(manifest.dependencies[name], name).toBe(version);
      expect(installedVersion(name), name).toBe(version);
    }
  });

  it('still keep the private fields the connection stands in for', () => {
    const client = fs.readFileSync(require.resolve('pg/lib/client.js'), 'utf8');
    for (const field of ['connection.parsedStatements', 'connection.submittedNamedStatements', '_connecting']) {
      expect(client, field).toContain(field);
    }
  });
});
