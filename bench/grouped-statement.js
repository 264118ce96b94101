// What a search costs PostgreSQL alone and in groups (decision 0094): the bench's search mix, one
// connection, one statement at a time, each group through `searchReportsMany` as a batch sends it
// (size 1 is the single statement; single searches under load send the same statement with their
// audit rows inserted beside it, decision 0097), then in groups of 16 as a screening job asks for
// its matches (the summary alone). Prints wall time and PostgreSQL's CPU per search.
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/grouped-statement.js [searches]
// Run `npm run bench` on the server first (it seeds and caches the schema), and nothing else beside.
import { searchReportsMany } from '../dist/modules/search/search.repository.js';
import { inShapeGroups } from '../dist/modules/search/search-coalescer.js';
import { openCachedServerSchema } from './seeded-database.js';
import { postgresCpuBetween, postgresCpuMs } from './service.js';

const url = process.env.DATABASE_URL;
const identifiers = Number(process.env.BENCH_IDENTIFIERS ?? 1_000_000);
const searches = Number(process.argv[2] ?? 4000);
const { schema, database, sealed, picker } = await openCachedServerSchema({ url, identifiers, seed: 11, poolSize: 1 });
const keys = Array.from({ length: searches }, () => {
  const { identifier, value } = picker.mixed();
  const found = sealed.searchKey(identifier, value);
  if (!found.ok) throw new Error(`${identifier} ${value}: ${found.message}`);
  return found.key;
});

async function pass(size, part = 'whole') {
  const groups = inShapeGroups(keys, (key) => key, size);
  const cpu = postgresCpuMs();
  const started = performance.now();
  for (const group of groups) await searchReportsMany(database.db, group, 30, part);
  const wall = performance.now() - started;
  return { wall: wall / keys.length, cpu: postgresCpuBetween(cpu, postgresCpuMs()) / keys.length };
}

await pass(16); // every page the searches read, into shared buffers
console.log(`${searches.toLocaleString()} searches of the bench's mix, ${schema}, one connection`);
for (const size of [1, 4, 8, 16]) {
  const { wall, cpu } = await pass(size);
  console.log(
    `  groups of ${String(size).padStart(2)}: ${wall.toFixed(3)} ms a search, PostgreSQL CPU ${cpu.toFixed(3)} ms a search`,
  );
}
// What a screening job asks for its matches: the summary alone, without the reports' lists.
await pass(16, 'summary');
const summary = await pass(16, 'summary');
console.log(
  `  groups of 16, summary alone: ${summary.wall.toFixed(3)} ms a search, PostgreSQL CPU ${summary.cpu.toFixed(3)} ms a search`,
);
await database.close();
