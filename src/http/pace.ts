/**
 * Pace of calls to one service: bounded concurrency plus a cap per interval,
 * on p-queue. A 429 pauses the whole lane, not just the call that saw it, so
 * the other queued calls do not spend the quota again.
 */
import PQueue from 'p-queue'
import { checkOptions } from '../core/options.ts'

export interface PaceOptions {
  /** Calls in flight at once. @default 4 */
  concurrency: number
  /** Calls started per interval. @default Infinity */
  intervalCap: number
  /** Interval in milliseconds for `intervalCap`. @default 60_000 */
  interval: number
  /**
   * Told when calls wait because `intervalCap` calls started in the last interval, with how many wait: once,
   * until the pace starts calls again. A long quiet wait on a quota looks like a hung run otherwise.
   */
  onHold?: (waiting: number) => void
}

export interface Pace {
  run<T>(task: () => Promise<T>): Promise<T>
  /** Holds new starts until `ms` from now (a quota window, a Retry-After). */
  holdFor(ms: number): void
  onIdle(): Promise<void>
  readonly pending: number
}

export function createPace(options: Partial<PaceOptions> = {}): Pace {
  const concurrency = options.concurrency ?? 4
  const intervalCap = options.intervalCap ?? Number.POSITIVE_INFINITY
  const interval = options.interval ?? 60_000
  checkOptions({ concurrency }, ['concurrency'], 'an integer >= 1')
  // What p-queue would refuse with a TypeError that has no code (it reads `interval` only with a cap, and `strict`).
  checkOptions({ intervalCap }, ['intervalCap'], 'an integer >= 1 or Infinity')
  if (Number.isFinite(intervalCap)) checkOptions({ interval }, ['interval'], 'a number of milliseconds from 1 to 2147483647')
  const queue = new PQueue(Number.isFinite(intervalCap) ? { concurrency, intervalCap, interval, strict: true } : { concurrency })
  let heldUntil = 0
  const { onHold } = options
  // p-queue says `rateLimit` once when queued calls start to wait for the cap (never with none queued), however
  // they arrived, and again only after calls started.
  if (onHold) queue.addEventListener('rateLimit', () => onHold(queue.size))
  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      return queue.add(async () => {
        const wait = heldUntil - Date.now()
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
        return task()
      }) as Promise<T>
    },
    holdFor(ms: number) {
      heldUntil = Math.max(heldUntil, Date.now() + ms)
    },
    onIdle: () => queue.onIdle(),
    get pending() {
      return queue.pending + queue.size
    },
  }
}
