// The `screen` scenario of `npm run bench -- --only screen [--screen-rows N]`: a customer file of N
// rows (default 1,000,000; the customer-book mix of bench/run.js: 98% misses) sent to
// POST /api/v1/external/screenings and followed to the end, while single searches run beside it.
// Reports rows a second (upload + screening), the service's peak RSS, and the searches' p99
// beside the job against the same searches alone.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { measure } from './load.js';

/** Writes the file once per row count and population (cached beside the seeded database). */
function customerFile(cacheDir, rows, pick, cacheKey) {
  const file = path.join(cacheDir, `screen-${cacheKey}-${rows}.csv`);
  if (fs.existsSync(file)) return file;
  const out = fs.openSync(`${file}.part`, 'w');
  let text = 'label,value,ref\n';
  for (let i = 0; i < rows; i++) {
    const { identifier, value } = pick();
    text += `${identifier},${value.includes(',') ? `"${value}"` : value},cust-${i}\n`;
    if (text.length > 1 << 20) {
      fs.writeSync(out, text);
      text = '';
    }
  }
  fs.writeSync(out, text);
  fs.closeSync(out);
  fs.renameSync(`${file}.part`, file);
  return file;
}

/**
 * The upload, from a child process: in this one it would share autocannon's thread, and the
 * searches' latencies measured beside it would include the time the upload held that thread.
 */
function uploadFromChild(baseUrl, apiKey, file) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(import.meta.dirname, 'upload-file.mjs'), baseUrl, file], {
      env: { ...process.env, REDFLAG_BENCH_API_KEY: apiKey },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (data) => {
      out += data;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`the upload process exited with ${code}`)),
    );
  });
}

export async function measureScreening({ service, apiKey, cacheDir, cacheKey, rows, pick, search, connections, duration }) {
  const file = customerFile(cacheDir, rows, pick, cacheKey);
  const sizeMb = fs.statSync(file).size / 2 ** 20;
  process.stderr.write(`  screen: ${rows.toLocaleString()} rows (${sizeMb.toFixed(0)} MB); searches alone first ...\n`);
  // Single searches alone, at the connections a teller's desk and a payment switch might use beside
  // a job: before it and again after it, as the ceiling is, because this kind of machine drifts
  // (one 10-s measurement's p99 moved between 8.5 and 13.6 ms from run to run of the same build
  // on one day, 8.5–18.2 ms on another).
  const aloneRun = () =>
    measure({ baseUrl: service.baseUrl, request: search, connections, duration, warmup: 1, keepLatencies: true });
  const aloneBefore = await aloneRun();

  let rssPeak = service.rss();
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, service.rss());
  }, 250);
  const started = performance.now();
  const uploading = uploadFromChild(service.baseUrl, apiKey, file);
  // Searches beside the job for as long as the upload and the screening take (measured in slices).
  const beside = [];
  // The embedded engine's checkpoints hold every request while they run: their time in each slice.
  const checkpointsAt = [await checkpointStats(service.baseUrl)];
  let done = false;
  const searching = (async () => {
    while (!done) {
      beside.push(
        await measure({ baseUrl: service.baseUrl, request: search, connections, duration: 5, warmup: 0, keepLatencies: true }),
      );
      checkpointsAt.push(await checkpointStats(service.baseUrl));
    }
  })();
  const accepted = await uploading;
  const uploadedSeconds = (performance.now() - started) / 1000;
  const body = accepted.body;
  if (accepted.status !== 202) throw new Error(`screening upload answered ${accepted.status}: ${JSON.stringify(body)}`);
  const id = body.data.job.id;
  let job;
  for (;;) {
    job = (
      await (await fetch(`${service.baseUrl}/api/v1/external/screenings/${id}`, { headers: { 'x-api-key': apiKey } })).json()
    ).data.job;
    if (job.status === 'done' || job.status === 'failed') break;
    await sleep(250);
  }
  const seconds = (performance.now() - started) / 1000;
  done = true;
  await searching;
  clearInterval(sampler);
  if (job.status !== 'done') throw new Error(`screening job ${id} failed: ${job.failure}`);
  const aloneAfter = await aloneRun();
  // The p99 of every search made while the job ran (all slices together), and the worst slice's.
  const slices = beside.filter((r) => r.completed > 0);
  // Every slice, in order; one in which no search was answered has no p99 (undefined).
  const sliceP99s = beside.map((r) => (r.completed > 0 ? r.p99 : undefined));
  const checkpoints = checkpointsAt.every(Boolean)
    ? {
        count: checkpointsAt.at(-1).count - checkpointsAt[0].count,
        seconds: checkpointsAt.at(-1).seconds - checkpointsAt[0].seconds,
        sliceSeconds: beside.map((_, i) => checkpointsAt[i + 1].seconds - checkpointsAt[i].seconds),
      }
    : undefined;
  return {
    rows: job.rowsScreened,
    matches: job.matches,
    errors: job.errors,
    seconds,
    uploadedSeconds,
    rowsPerSecond: job.rowsScreened / seconds,
    rssPeak,
    searchAlone: {
      // Both measurements' searches together, and each one's p99.
      requestsPerSecond: (aloneBefore.requestsPerSecond + aloneAfter.requestsPerSecond) / 2,
      p99: p99Of([aloneBefore, aloneAfter]),
      p99Before: aloneBefore.p99,
      p99After: aloneAfter.p99,
    },
    checkpoints,
    searchBeside: {
      requestsPerSecond: slices.reduce((s, r) => s + r.requestsPerSecond, 0) / Math.max(1, slices.length),
      p99: p99Of(slices),
      worstSliceP99: Math.max(...slices.map((r) => r.p99)),
      // Where in the job the searches suffered (the upload is done at uploadedSeconds).
      sliceP99s,
    },
  };
}

/** The embedded engine's checkpoint counters from /metrics, or undefined on the server engine. */
async function checkpointStats(baseUrl) {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const metric = (name) => new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
  const count = metric('redflag_embedded_checkpoints_total');
  if (count === undefined) return undefined;
  return { count: Number(count), seconds: Number(metric('redflag_embedded_checkpoint_seconds_total')) };
}

/** The p99 of every latency of several measurements taken together. */
function p99Of(runs) {
  const all = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  return all[Math.min(all.length - 1, Math.ceil(0.99 * all.length) - 1)];
}
