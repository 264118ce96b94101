// Summarises V8 CPU profiles (node --cpu-prof, or `npm run bench -- --profile`): where self time goes,
// by area (our code, each package, Node internals, GC) and by function.
//   node bench/profile-summary.js .bench-cache/profiles/*.cpuprofile [--top 25]
import fs from 'node:fs';

const args = process.argv.slice(2);
const topIndex = args.indexOf('--top');
const top = topIndex === -1 ? 25 : Number(args[topIndex + 1]);
const files = args.filter((a, i) => !a.startsWith('--') && (topIndex === -1 || i !== topIndex + 1));
if (files.length === 0) {
  console.error('usage: node bench/profile-summary.js <file.cpuprofile>... [--top N]');
  process.exit(2);
}

function areaOf(url, functionName) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native / V8)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const ours = /\/dist\/(.+)$/.exec(url);
  if (ours) return `redflag ${ours[1].split('/').slice(0, -1).join('/') || '.'}`;
  return url.split('/').slice(-2).join('/');
}

const byArea = new Map();
const byFunction = new Map();
let total = 0;
let idle = 0;
for (const file of files) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  // timeDeltas[i] is the time since the previous sample; the sample is attributed to samples[i].
  profile.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  for (const [id, us] of self) {
    const { callFrame } = nodes.get(id);
    const area = areaOf(callFrame.url, callFrame.functionName);
    if (area === '(idle)') {
      idle += us;
      continue;
    }
    total += us;
    byArea.set(area, (byArea.get(area) ?? 0) + us);
    const where = callFrame.url ? `${callFrame.url.replace(/^.*\/(node_modules|dist)\//, '')}:${callFrame.lineNumber + 1}` : '';
    const name = `${callFrame.functionName || '(anonymous)'} ${where}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  }
}

const pct = (us) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
console.log(
  `busy ${(total / 1e6).toFixed(1)} s, idle ${(idle / 1e6).toFixed(1)} s over ${files.length} profile(s); shares below are of busy time\n`,
);
console.log('by area');
for (const [area, us] of [...byArea].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(us)}  ${area}`);
console.log('\nby function (self time)');
for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(us)}  ${name}`);
