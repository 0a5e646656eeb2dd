/**
 * Many targets: export and sync work on several targets at once (`parallelTargets`), results in the
 * config's order, messages named by target when more than one is under way, and a failure ending the run as a
 * run of one target after another would have ended it.
 */
import { describe, expect, it } from 'vitest'
import type { Reporter } from '../../src/cli/reporter.ts'
import { runTargets } from '../../src/cli/targets.ts'
import type { TargetConfig } from '../../src/config/schema.ts'

const targets = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `t${i + 1}` }) as TargetConfig)

function recordingReporter() {
  const lines: string[] = []
  const reporter: Reporter = {
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    debug: (m) => lines.push(`debug ${m}`),
    progress: (label, done, total) => lines.push(`progress ${label} ${done}/${total}`),
    endProgress: () => undefined,
    result: () => undefined,
  }
  return { lines, reporter }
}

/** A promise and the function that settles it, to finish targets in an order the test chooses. */
function gate() {
  let open: () => void = () => undefined
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

describe('runTargets: many targets at once', () => {
  it('runs up to the limit at once and gives the results in the config’s order, whatever order they finish in', async () => {
    const { reporter } = recordingReporter()
    const gates = targets(5).map(() => gate())
    let running = 0
    let most = 0
    const started: string[] = []
    const done = runTargets(targets(5), 3, reporter, async (target) => {
      started.push(target.name)
      running++
      most = Math.max(most, running)
      await gates[Number(target.name.slice(1)) - 1]!.opened
      running--
      return target.name.toUpperCase()
    })
    await new Promise((resolve) => setImmediate(resolve))
    expect(started).toEqual(['t1', 't2', 't3'])
    for (const i of [2, 0, 4, 1, 3]) {
      gates[i]!.open()
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect(await done).toEqual(['T1', 'T2', 'T3', 'T4', 'T5'])
    expect(most).toBe(3)
  })

  it('with a limit of 1, or one target, runs one after another and leaves messages as they are', async () => {
    const { lines, reporter } = recordingReporter()
    const order: string[] = []
    await runTargets(targets(3), 1, reporter, async (target, r) => {
      order.push(`start ${target.name}`)
      r.info('working')
      await new Promise((resolve) => setImmediate(resolve))
      order.push(`end ${target.name}`)
    })
    expect(order).toEqual(['start t1', 'end t1', 'start t2', 'end t2', 'start t3', 'end t3'])
    expect(lines).toEqual(['info working', 'info working', 'info working'])
  })

  it('names the target in every message when several are under way', async () => {
    const { lines, reporter } = recordingReporter()
    await runTargets(targets(2), 4, reporter, async (target, r) => {
      r.info('reading')
      r.warn('careful')
      r.progress('Reading timelines', 1, 2)
      return target.name
    })
    expect(lines.sort()).toEqual([
      'info t1: reading',
      'info t2: reading',
      'progress t1: Reading timelines 1/2',
      'progress t2: Reading timelines 1/2',
      'warn t1: careful',
      'warn t2: careful',
    ])
  })

  it('after a failure starts no further target, lets those under way finish, and throws the first failure in the config’s order', async () => {
    const { reporter } = recordingReporter()
    const started: string[] = []
    const finished: string[] = []
    const slow = gate()
    const run = runTargets(targets(6), 2, reporter, async (target) => {
      started.push(target.name)
      if (target.name === 't1') {
        await slow.opened
        finished.push('t1')
        throw new Error('t1 failed later')
      }
      if (target.name === 't2') throw new Error('t2 failed first')
      finished.push(target.name)
      return target.name
    })
    await new Promise((resolve) => setImmediate(resolve))
    slow.open()
    await expect(run).rejects.toThrow('t1 failed later')
    expect(started).toEqual(['t1', 't2'])
    expect(finished).toEqual(['t1'])
  })
})
