/**
 * The pace's word when calls wait for the next interval: a quota-bound run (fifty targets on Google's 60 a
 * minute) waits for up to a minute at a time, which must not look like a hung run.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createPace } from '../../src/http/pace.ts'
import { createGoogleLanes } from '../../src/sheets/google/backend.ts'

beforeEach(() => vi.useFakeTimers())
afterEach(() => vi.useRealTimers())

describe('createPace onHold', () => {
  it('says once how many calls wait when the cap is reached, and again at the next hold', async () => {
    const holds: number[] = []
    const pace = createPace({ concurrency: 1, intervalCap: 2, interval: 60_000, onHold: (n) => holds.push(n) })
    const done: number[] = []
    const calls = [1, 2, 3, 4, 5].map((i) => pace.run(async () => void done.push(i)))
    await vi.advanceTimersByTimeAsync(0)
    expect(done).toEqual([1, 2])
    expect(holds).toEqual([3])
    // A call added while held is not told again.
    const sixth = pace.run(async () => void done.push(6))
    await vi.advanceTimersByTimeAsync(0)
    expect(holds).toEqual([3])
    await vi.advanceTimersByTimeAsync(60_000)
    expect(done).toEqual([1, 2, 3, 4])
    expect(holds).toEqual([3, 2])
    await vi.advanceTimersByTimeAsync(120_000)
    await Promise.all([...calls, sixth])
    expect(done).toEqual([1, 2, 3, 4, 5, 6])
    // The last two start in the third interval: the cap is reached again, but nobody waits.
    expect(holds).toEqual([3, 2])
  })

  it('says nothing while calls wait only for each other (concurrency), or when the cap is reached with nobody waiting', async () => {
    const holds: number[] = []
    const pace = createPace({ concurrency: 1, intervalCap: 3, interval: 60_000, onHold: (n) => holds.push(n) })
    await Promise.all([1, 2, 3].map(() => pace.run(async () => undefined)))
    expect(holds).toEqual([])
  })

  it('tells a call that arrives while the cap is reached', async () => {
    const holds: number[] = []
    const pace = createPace({ concurrency: 2, intervalCap: 1, interval: 60_000, onHold: (n) => holds.push(n) })
    await pace.run(async () => undefined)
    await vi.advanceTimersByTimeAsync(0)
    const late = pace.run(async () => 'late')
    await vi.advanceTimersByTimeAsync(0)
    expect(holds).toEqual([1])
    await vi.advanceTimersByTimeAsync(60_000)
    await expect(late).resolves.toBe('late')
  })
})

describe('createGoogleLanes onHold', () => {
  it("names the lane whose minute of quota is spent; the other lane's requests go on", async () => {
    const holds: [string, number][] = []
    const lanes = createGoogleLanes({ readsPerMinute: 1, writesPerMinute: 1, onHold: (lane, n) => holds.push([lane, n]) })
    const reads = [lanes.read.run(async () => 'r1'), lanes.read.run(async () => 'r2')]
    await vi.advanceTimersByTimeAsync(0)
    expect(holds).toEqual([['read', 1]])
    await expect(lanes.write.run(async () => 'w1')).resolves.toBe('w1')
    expect(holds).toEqual([['read', 1]])
    await vi.advanceTimersByTimeAsync(60_000)
    await expect(Promise.all(reads)).resolves.toEqual(['r1', 'r2'])
  })
})
