// Posts a customer file to POST /api/v1/external/screenings from a process of its own, so the
// 38 MB upload does not share a thread with the load generator measuring the searches beside it
// (bench/screen.js). Usage: node bench/upload-file.mjs <baseUrl> <file>, the API key in
// REDFLAG_BENCH_API_KEY; prints `{ status, body }` as JSON.
import fs from 'node:fs';

const [baseUrl, file] = process.argv.slice(2);
const form = new FormData();
form.append('file', await fs.openAsBlob(file, { type: 'text/csv' }), 'customers.csv');
const answer = await fetch(`${baseUrl}/api/v1/external/screenings`, {
  method: 'POST',
  headers: { 'x-api-key': process.env.REDFLAG_BENCH_API_KEY ?? '' },
  body: form,
});
process.stdout.write(JSON.stringify({ status: answer.status, body: await answer.json() }));
