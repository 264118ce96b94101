// Builds dist/ when TypeScript is installed. Runs on `npm install` (so `npx redflag` works at once)
// and before `npm start`. A production install (`npm ci && npm run build && npm prune --omit=dev`)
// has no TypeScript and ships the dist/ built before the prune: it is used as it is.
// `--require-dist`: with no TypeScript and no dist/ there is nothing to start, which is an error.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';

let hasTypeScript = true;
try {
  createRequire(import.meta.url).resolve('typescript/package.json');
} catch {
  hasTypeScript = false;
}
if (hasTypeScript) {
  execSync('npm run build --silent', { stdio: 'inherit' });
} else if (fs.existsSync(new URL('../dist/server.js', import.meta.url))) {
  // Production install: dist/ was built before the dev dependencies were pruned.
} else if (process.argv.includes('--require-dist')) {
  console.error('redflag: no dist/ and no TypeScript to build it; run `npm ci && npm run build` before `npm prune --omit=dev`');
  process.exit(1);
} else {
  console.log('redflag: TypeScript is not installed (production install?); not building dist/');
}
