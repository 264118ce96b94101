/**
 * Runs `batch` (one bounded statement, answering how many rows it handled) until one comes back
 * short of `size`; the total. The retention jobs' loop: each batch commits on its own, so no lock is
 * held long and a run cut short leaves the rest for the next one.
 */
export async function untilShortBatch(size: number, batch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await batch();
    total += n;
    if (n < size) return total;
  }
}
