// What reading a customer file costs the service's thread: the screening upload's parse
// (`readChunks`, csv-parse) over a file of the `screen` scenario, without the database or the
// network. Prints the rows, chunks, CPU and wall seconds of each pass.
//   node bench/read-file.js <file.csv> [passes]
// `npm run bench -- --only screen` writes such a file to .bench-cache/screen-*.csv.
import fs from 'node:fs';
import { readChunks } from '../dist/modules/screenings/screening-file.js';

const [file, passArg = '3'] = process.argv.slice(2);
const passes = Number(passArg);
if (!file || !Number.isInteger(passes) || passes < 1) {
  console.error('usage: node bench/read-file.js <file.csv> [passes]');
  process.exit(2);
}
for (let pass = 1; pass <= passes; pass++) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let rows = 0;
  let chunks = 0;
  for await (const chunk of readChunks(fs.createReadStream(file))) {
    rows += chunk.rows.length + chunk.rejected.length;
    chunks++;
  }
  const used = process.cpuUsage(cpu);
  console.log(
    `pass ${pass}: ${rows.toLocaleString('en')} rows in ${chunks} chunks, CPU ${((used.user + used.system) / 1e6).toFixed(2)} s, wall ${((performance.now() - started) / 1e3).toFixed(2)} s`,
  );
}
