import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Keyring } from '../../crypto/keyring.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { SERVING_LOOP_SHARE } from '../../jobs/loop-share.js';
import { findCompanyById } from '../companies/companies.repository.js';
import { isUuid } from '../ids.js';
import { createScreeningsService, type JobView } from './screenings.service.js';

/** Writes CSV lines to a file readable by its owner only, a page at a time. */
export async function writeCsv(file: string, lines: AsyncGenerator<string>): Promise<void> {
  const stream = fs.createWriteStream(file, { mode: 0o600 });
  for await (const text of lines) {
    // Waits when the disk is slower than the database: the file is never held whole.
    if (!stream.write(text)) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

/**
 * `redflag screen` through a running service's control socket (the embedded engine, where the
 * command cannot open the data directory itself): the service reads the file from the path the
 * command gives (same machine, same user: the socket is its owner's only), screens it like an
 * upload, and writes the results where the command asks.
 */
export function createScreeningsAdmin(deps: {
  db: Kysely<Database>;
  keyring: Pick<Keyring, 'seal' | 'open'>;
  /** A job's pace (REDFLAG_SCREENING_ROWS_PER_SECOND): the upload keeps to its own (decision 0100). */
  rowsPerSecond: number;
  log?: { warn(obj: object, msg: string): void };
}) {
  // Through the control socket the file is read in the process that serves requests: it keeps to
  // its share. (The CLI builds this too, for its other commands; it never uploads through it.)
  const screenings = createScreeningsService({
    db: deps.db,
    keyring: deps.keyring,
    loopShare: SERVING_LOOP_SHARE,
    rowsPerSecond: deps.rowsPerSecond,
  });

  async function activeCompany(companyId: string): Promise<string> {
    // The built-in public-reports company is not a member and screens nothing.
    const company = isUuid(companyId) ? await findCompanyById(deps.db, companyId.toLowerCase()) : undefined;
    if (!company) throw AppError.notFound(`Company ${companyId} not found`);
    if (company.status !== 'active') throw new AppError('INVALID_STATE', `Company ${companyId} is suspended`);
    return company.id;
  }

  return {
    activeCompany,

    /** Starts the job and answers at once; the file is read in the background (follow it with `get`). */
    async start(companyIdText: string, file: string): Promise<JobView> {
      const companyId = await activeCompany(companyIdText);
      if (!path.isAbsolute(file) || !fs.existsSync(file)) {
        throw AppError.validation([{ field: 'file', message: `no file at ${file}` }]);
      }
      const job = await screenings.create({ companyId, keyId: null, userId: null });
      screenings.receive(job, companyId, fs.createReadStream(file)).catch((err: unknown) => {
        // The job is failed by `receive`; the command sees it through `get`.
        deps.log?.warn({ err, jobId: job.id }, 'screening file could not be read');
      });
      return job;
    },

    get: (companyId: string, id: string) => screenings.get(companyId, id),

    async results(companyId: string, id: string, out: { matches: string; errors: string }) {
      await writeCsv(out.matches, screenings.matchesCsv(companyId, id));
      await writeCsv(out.errors, screenings.errorsCsv(companyId, id));
      return { matchesFile: out.matches, errorsFile: out.errors };
    },
  };
}

export type ScreeningsAdmin = ReturnType<typeof createScreeningsAdmin>;
