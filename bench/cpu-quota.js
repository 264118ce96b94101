// `--worker-cpu C` of the scaling table: each serving process gets a CPU quota of C cores of its own
// (a Linux cgroup, as a container's CPU limit does), so that on a machine whose cores one worker
// already fills (two cores shared with PostgreSQL and the load generator) the table can still tell
// whether N workers serve N times what one serves, or whether something between them serialises.
// It needs root and a writable cgroup file system (v1's cpu controller or v2's cpu.max).
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { childrenOf } from './service.js';

const V1_ROOT = '/sys/fs/cgroup/cpu';
const V2_ROOT = '/sys/fs/cgroup';
const PERIOD_US = 100_000;

function hierarchy() {
  if (fs.existsSync(path.join(V1_ROOT, 'cpu.cfs_quota_us'))) return 'v1';
  if (fs.existsSync(path.join(V2_ROOT, 'cgroup.controllers'))) return 'v2';
  return undefined;
}

/** Says why quotas cannot be set here, or nothing when they can (checked before the run starts). */
export function cpuQuotaUnavailable() {
  const kind = hierarchy();
  if (!kind) return 'no cgroup cpu controller is mounted at /sys/fs/cgroup';
  const probe = path.join(kind === 'v1' ? V1_ROOT : V2_ROOT, `redflag-bench-probe-${process.pid}`);
  try {
    fs.mkdirSync(probe);
  } catch (error) {
    return `cannot create a cgroup (${error.code ?? error.message}): run the bench as root`;
  }
  try {
    // A quota set on the probe, as the run will set it (on v2 the cpu controller must be enabled below the root).
    if (kind === 'v1') fs.writeFileSync(path.join(probe, 'cpu.cfs_quota_us'), String(PERIOD_US));
    else fs.writeFileSync(path.join(probe, 'cpu.max'), `${PERIOD_US} ${PERIOD_US}`);
    return undefined;
  } catch (error) {
    return `cannot set a CPU quota (${error.code ?? error.message})${kind === 'v2' ? ': enable the cpu controller in cgroup.subtree_control' : ''}`;
  } finally {
    fs.rmdirSync(probe);
  }
}

/**
 * Puts each worker of the service `pid` (its cluster children, or the process itself when it serves
 * alone) into a cgroup of its own limited to `cores` cores, waiting up to half a minute for all
 * `workers` to have been forked. Returns a function that removes the cgroups once the service has
 * exited.
 */
export async function limitWorkers(pid, workers, cores) {
  const kind = hierarchy();
  let targets = [];
  for (const deadline = Date.now() + 30_000; ; ) {
    targets = workers > 1 ? childrenOf(pid) : [pid];
    if (targets.length >= workers) break;
    if (Date.now() > deadline) throw new Error(`only ${targets.length} of ${workers} workers appeared`);
    await sleep(100);
  }
  const quota = Math.round(cores * PERIOD_US);
  const groups = targets.map((target, i) => {
    const dir = path.join(kind === 'v1' ? V1_ROOT : V2_ROOT, `redflag-bench-${process.pid}-${i}`);
    fs.mkdirSync(dir, { recursive: true });
    if (kind === 'v1') {
      fs.writeFileSync(path.join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
      fs.writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), String(quota));
    } else {
      fs.writeFileSync(path.join(dir, 'cpu.max'), `${quota} ${PERIOD_US}`);
    }
    // cgroup.procs moves every thread of the process (libuv's pool and V8's helpers too).
    fs.writeFileSync(path.join(dir, 'cgroup.procs'), String(target));
    return dir;
  });
  return async function removeLimits() {
    for (const dir of groups) {
      // A cgroup can be removed only once its processes have left it (exited).
      for (let tries = 0; tries < 50; tries++) {
        try {
          fs.rmdirSync(dir);
          break;
        } catch {
          await sleep(100);
        }
      }
    }
  };
}
