import { DatabaseWaitTimeoutError } from '../../db/unavailable.js';
import type { SearchKey } from '../../identifiers/sealed-identifiers.js';

/** Searches per statement at most: past 16 a key saves little more (decision 0094), and each waits for its whole group. */
export const MAX_GROUP = 16;

interface Waiting<R, A> {
  key: SearchKey;
  /** What the statement writes for this search (its audit row), however many searches share its key. */
  audit: A;
  /** When it began to wait (performance.now()). */
  since: number;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export interface SearchCoalescer<R, A> {
  /** The search of one key: with the others that arrived in the same turn, or that wait for this process's running statement. */
  search(key: SearchKey, audit: A): Promise<R>;
}

/** One search of a statement's group: its key's place in the statement's keys, and its own audit. */
export interface GroupedSearch<A> {
  slot: number;
  audit: A;
}

/** Keys one statement can carry together: the same index column and number of live index keys. */
export const shapeOf = (key: SearchKey) => `${key.column}:${key.indexes.length}`;

/** Keys that are the same search: one answer serves them all. */
const identityOf = (key: SearchKey) => `${key.label}:${shapeOf(key)}:${key.indexes.map((d) => d.toString('hex')).join(':')}`;

/**
 * Group commit, for reads. Searches that arrive in one turn of the event loop go in one statement
 * (the pump runs once the turn's I/O has been read, as DataLoader batches a tick), and the searches
 * of the oldest one's shape go together (`run`, a lateral join that answers each key as its own
 * statement would). While a statement of this process is running, the searches that arrive wait
 * for it to finish and then go together; a second statement starts beside it only for a full
 * group (MAX_GROUP), and never more than `inFlight` at once (fewer than the process's connections,
 * so single searches leave one to batches and other requests). Under light load nothing is
 * running and a search goes at once, alone, as before. Under load a statement that starts beside a
 * running one for one or two searches pays the statement's whole fixed cost for them: waiting for
 * the running statement cost PostgreSQL about 15% less CPU per search of the bench's mix
 * (decision 0096); sequentially a search in a statement of 16 costs it less than half of one
 * alone (decision 0094). The wait is the running statement's time, which includes any wait of
 * its own for a connection (behind a batch's statements or a batch's audit insert).
 * Read-your-writes holds: a waiting search's statement starts after it arrived, so it sees every
 * report committed before. Each search brings its audit row's who (`audit`), which `run` writes
 * with the statement (decision 0097): a key searched twice at once is run once, audited twice.
 *
 * Waiting here replaces waiting in the pool's queue, so it keeps that queue's limit: a search that
 * has waited `waitLimitMs` (the connection wait, 2 s by default) fails as a pool timeout would,
 * a 503 the client may retry. Without it, a database that stopped answering drained the searches
 * waiting here only in rounds of timeouts. A group sent on may still wait in the pool's own queue
 * (behind a batch's statement or audit insert), so the longest wait is about twice the connection wait.
 */
export function createSearchCoalescer<R, A = void>(deps: {
  inFlight: number;
  /** How long a search may wait for a statement slot; none on the embedded engine, whose pool waits without limit too. */
  waitLimitMs?: number | undefined;
  /** The keys' searches in one statement (searchReportsAudited), answers in the keys' order; `searches` are every search of the group, in order. */
  run: (keys: SearchKey[], searches: GroupedSearch<A>[]) => Promise<R[]>;
}): SearchCoalescer<R, A> {
  let waiting: Waiting<R, A>[] = [];
  let running = 0;
  /** A pump is due at the end of this turn of the event loop (setImmediate), for the searches that arrived in it. */
  let pumpDue = false;
  let expiry: NodeJS.Timeout | undefined;

  function takeGroup(): Waiting<R, A>[] {
    const shape = shapeOf((waiting[0] as Waiting<R, A>).key);
    const group: Waiting<R, A>[] = [];
    const rest: Waiting<R, A>[] = [];
    for (const w of waiting) (group.length < MAX_GROUP && shapeOf(w.key) === shape ? group : rest).push(w);
    waiting = rest;
    return group;
  }

  async function runGroup(group: Waiting<R, A>[]): Promise<void> {
    try {
      // The same key searched twice at once (a hot identifier) is run once: same snapshot, same answer.
      const distinct = new Map<string, number>();
      const keys: SearchKey[] = [];
      const slots = group.map((w) => {
        const identity = group.length === 1 ? '' : identityOf(w.key);
        let slot = distinct.get(identity);
        if (slot === undefined) {
          slot = keys.push(w.key) - 1;
          distinct.set(identity, slot);
        }
        return slot;
      });
      const results = await deps.run(
        keys,
        group.map((w, n) => ({ slot: slots[n] as number, audit: w.audit })),
      );
      group.forEach((w, n) => {
        w.resolve(results[slots[n] as number] as R);
      });
    } catch (error) {
      // Every search of the group fails as its own statement would have (a 503 when the database is away).
      for (const w of group) w.reject(error);
    }
  }

  /** Whether the oldest waiting search's shape has a full group waiting (takeGroup takes that shape only). */
  function fullGroupWaits(): boolean {
    if (waiting.length < MAX_GROUP) return false;
    const shape = shapeOf((waiting[0] as Waiting<R, A>).key);
    let same = 0;
    for (const w of waiting) if (shapeOf(w.key) === shape && ++same >= MAX_GROUP) return true;
    return false;
  }

  /** Whether the searches waiting now should start a statement: at once when none runs, beside a running one only as a full group. */
  const mayStart = () => running < deps.inFlight && waiting.length > 0 && (running === 0 || fullGroupWaits());

  function pump(): void {
    while (mayStart()) {
      const group = takeGroup();
      running++;
      void runGroup(group).finally(() => {
        running--;
        pump();
      });
    }
    scheduleExpiry();
  }

  /** Fails the searches that waited too long; a timer, because no slot frees while statements hang. */
  function scheduleExpiry(): void {
    const limit = deps.waitLimitMs;
    if (limit === undefined || expiry || !waiting.length) return;
    const oldest = (waiting[0] as Waiting<R, A>).since;
    expiry = setTimeout(
      () => {
        expiry = undefined;
        const now = performance.now();
        const overdue = waiting.filter((w) => now - w.since >= limit);
        if (overdue.length) {
          waiting = waiting.filter((w) => now - w.since < limit);
          const error = new DatabaseWaitTimeoutError(`a search waited ${limit} ms for a database connection`);
          for (const w of overdue) w.reject(error);
        }
        scheduleExpiry();
      },
      Math.max(0, oldest + limit - performance.now()),
    );
    expiry.unref();
  }

  return {
    search(key, audit) {
      return new Promise<R>((resolve, reject) => {
        waiting.push({ key, audit, since: performance.now(), resolve, reject });
        if (pumpDue) return;
        pumpDue = true;
        setImmediate(() => {
          pumpDue = false;
          pump();
        });
      });
    },
  };
}

/** Single-search statements at once: all the process's connections but one (at least one). */
export function searchesInFlightFor(connections: number): number {
  return Math.max(1, connections - 1);
}

/** Items in groups of one shape and at most `size`, each group one statement of searchReportsMany. */
export function inShapeGroups<T>(items: readonly T[], keyOf: (item: T) => SearchKey, size = MAX_GROUP): T[][] {
  if (!(size >= 1)) throw new RangeError(`a group holds at least one search, not ${size}`);
  const byShape = new Map<string, T[]>();
  for (const item of items) {
    const shape = shapeOf(keyOf(item));
    const list = byShape.get(shape);
    if (list) list.push(item);
    else byShape.set(shape, [item]);
  }
  const groups: T[][] = [];
  for (const list of byShape.values()) for (let at = 0; at < list.length; at += size) groups.push(list.slice(at, at + size));
  return groups;
}
