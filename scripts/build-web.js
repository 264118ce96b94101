// Builds the desk and the public form into dist/web: one small bundle per page (esbuild, minified),
// the pages and the style sheet copied beside them. Nothing is fetched from elsewhere at run time.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const out = path.join(root, 'dist/web');
fs.rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: {
    desk: path.join(root, 'web/desk.ts'),
    report: path.join(root, 'web/report.ts'),
    review: path.join(root, 'web/review.ts'),
  },
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  outdir: out,
  logLevel: 'warning',
});
for (const file of ['index.html', 'report.html', 'review.html', 'style.css'])
  fs.copyFileSync(path.join(root, 'web', file), path.join(out, file));
