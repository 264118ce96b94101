import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import cliProgress from 'cli-progress';
import type { Config } from '../../config.js';
import { loadCrypto } from '../../crypto/load-crypto.js';
import { databaseOptions, openDatabase } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import { AppError } from '../../http/errors.js';
import { shippedBankDirectory } from '../../identifiers/normalize.js';
import { createSealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import { ControlSocketUnavailableError, sendControlCommand } from '../admin/control-socket.js';
import { createScreeningWorker } from './screening.worker.js';
import { createScreeningsAdmin, writeCsv } from './screenings.admin.js';
import { createScreeningsService, type JobView } from './screenings.service.js';

export interface ScreenOptions {
  company: string;
  /** Where the results go: `<out>.matches.csv` and `<out>.errors.csv` (default: beside the file). */
  out?: string;
  json?: boolean;
}

export interface Screened {
  job: JobView;
  matchesFile: string;
  errorsFile: string;
}

const ended = (job: JobView) => job.status === 'done' || job.status === 'failed';

/**
 * `redflag screen <file> --company <id>`: the same job as `POST /api/v1/external/screenings`, with
 * a progress bar, the results written beside the file. Wherever the data is: through a running
 * service's control socket when one holds the embedded data directory (it reads the file and
 * screens it), otherwise in this process against the database (a PostgreSQL server, or an
 * embedded directory nobody holds; a running service's workers take turns on the job too).
 */
export async function screenAnywhere(config: Config, file: string, options: ScreenOptions): Promise<Screened> {
  const absolute = path.resolve(file);
  if (!fs.existsSync(absolute)) throw AppError.validation([{ field: 'file', message: `no file at ${file}` }]);
  const out = path.resolve(options.out ?? absolute.replace(/\.csv$/i, ''));
  const files = { matchesFile: `${out}.matches.csv`, errorsFile: `${out}.errors.csv` };
  if (!config.databaseUrl) {
    try {
      const job = await viaService(config.controlSocketPath, absolute, options, files);
      return { job, ...files };
    } catch (error) {
      if (!(error instanceof ControlSocketUnavailableError)) throw error;
    }
  }
  return { job: await inProcess(config, absolute, options, files), ...files };
}

async function viaService(socket: string, file: string, options: ScreenOptions, files: Omit<Screened, 'job'>): Promise<JobView> {
  const ask = (name: string, args: object) => sendControlCommand(socket, name, args) as Promise<{ job: JobView }>;
  const companyId = options.company;
  let { job } = await ask('screening.start', { companyId, file });
  const progress = showProgress(options.json === true);
  while (!ended(job)) {
    await sleep(250);
    ({ job } = await ask('screening.get', { companyId, id: job.id }));
    progress.update(job);
  }
  progress.stop(job);
  if (job.status === 'failed') throw new AppError('INVALID_STATE', `The screening failed: ${job.failure}`);
  await sendControlCommand(socket, 'screening.results', { companyId, id: job.id, ...files });
  return job;
}

async function inProcess(config: Config, file: string, options: ScreenOptions, files: Omit<Screened, 'job'>): Promise<JobView> {
  const database = await openDatabase(databaseOptions(config, 2));
  try {
    await migrateToLatest(database.db);
    const crypto = await loadCrypto({ db: database.db, config, engine: database.engine });
    // This process serves no one: neither the upload nor the job waits for a share of the loop. On a
    // server both keep the pace (decision 0100): the database is the one the service searches. An
    // embedded data directory is this process's alone (the service, if any, is not running).
    const rowsPerSecond = database.engine === 'server' ? config.screeningRowsPerSecond : 0;
    const companyId = await createScreeningsAdmin({ db: database.db, keyring: crypto.keyring, rowsPerSecond }).activeCompany(
      options.company,
    );
    const screenings = createScreeningsService({
      db: database.db,
      keyring: crypto.keyring,
      loopShare: 1,
      rowsPerSecond,
    });
    const worker = createScreeningWorker({
      db: database.db,
      keyring: crypto.keyring,
      identifiers: createSealedIdentifiers({ crypto, banks: shippedBankDirectory() }),
      asyncCommits: database.asyncCommits,
      riskHalfLifeDays: config.riskHalfLifeDays,
      loopShare: 1,
      rowsPerSecond,
    });
    const job = await screenings.create({ companyId, keyId: null, userId: null });
    const progress = showProgress(options.json === true);
    // The file is stored while this process screens what is stored so far.
    let failed: unknown;
    const upload = screenings.receive(job, companyId, fs.createReadStream(file)).catch((err: unknown) => {
      failed = err;
    });
    let state = job;
    while (!ended(state) && !failed) {
      const screened = await worker.runDue(job.id);
      state = await screenings.get(companyId, job.id);
      progress.update(state);
      if (screened === 0) await sleep(100);
    }
    await upload;
    progress.stop(state);
    if (failed) throw failed;
    await writeCsv(files.matchesFile, screenings.matchesCsv(companyId, job.id));
    await writeCsv(files.errorsFile, screenings.errorsCsv(companyId, job.id));
    return state;
  } finally {
    await database.close();
  }
}

/** A redrawn bar on a terminal; a line per tenth when the output is piped; nothing with --json. */
function showProgress(quiet: boolean) {
  const bar =
    !quiet && process.stderr.isTTY
      ? new cliProgress.SingleBar(
          {
            format: '  screening [{bar}] {percentage}% | {value}/{total} rows | {matches} matches | {rate} rows/s',
            stream: process.stderr,
          },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
  bar?.start(1, 0, { matches: 0, rate: 0 });
  let lastTenth = 0;
  return {
    update(state: JobView) {
      bar?.setTotal(Math.max(1, state.rowsRead));
      bar?.update(state.rowsScreened, { matches: state.matches, rate: state.rowsPerSecond ?? 0 });
      const tenth = state.fileComplete && state.rowsRead > 0 ? Math.floor((state.rowsScreened / state.rowsRead) * 10) : 0;
      if (!bar && !quiet && tenth > lastTenth) {
        lastTenth = tenth;
        process.stderr.write(
          `  screening: ${state.rowsScreened.toLocaleString('en')} of ${state.rowsRead.toLocaleString('en')} rows\n`,
        );
      }
    },
    stop(state: JobView) {
      bar?.update(state.rowsScreened);
      bar?.stop();
    },
  };
}
