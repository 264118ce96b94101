// Runs on `npm install`: builds dist/ so `npx redflag` works at once. A production install without
// dev dependencies (`npm ci --omit=dev`) has no TypeScript; it must ship a dist/ built beforehand.
import { execSync } from 'node:child_process';
import { createRequire } from 'node:module';

try {
  createRequire(import.meta.url).resolve('typescript/package.json');
} catch {
  console.log('redflag: TypeScript is not installed (production install?); not building dist/');
  process.exit(0);
}
execSync('npm run build --silent', { stdio: 'inherit' });
