import { describe, expect, it } from 'vitest'
import { rememberSync, watchVerdict, WATCH_LOG_EVERY_MS, type WatchMemory, type WatchObservation } from '../../src/core/watch-verdict.ts'

const T = Date.parse('2026-11-10T09:00:00Z')
const window = { from: '2026-11-01T00:00:00+01:00', to: '2026-11-11T00:00:00+01:00' }
const seen = (over: Partial<WatchObservation> = {}): WatchObservation => ({
  sheetMark: '41',
  timelines: new Map([
    ['alice', '7,a 2026-11-10T08:00:00Z'],
    ['bob', '3,b 2026-11-09T17:00:00Z'],
  ]),
  window,
  ...over,
})
const memory = (over: Partial<WatchMemory> = {}): WatchMemory => ({ ...seen(), loggedAt: T, ...over })

describe('whether a watch interval syncs', () => {
  it('syncs when no sync has finished yet', () => {
    expect(watchVerdict(undefined, seen(), T)).toMatchObject({ sync: true, hourly: false })
  })

  it('is idle when the mark, every timeline version and the window are as before the last sync', () => {
    expect(watchVerdict(memory(), seen(), T + 59 * 60_000)).toEqual({ sync: false })
  })

  it.each([
    ['the spreadsheet changed', seen({ sheetMark: '42' })],
    ['a new day: the export window moved', seen({ window: { ...window, to: '2026-11-12T00:00:00+01:00' } })],
    [
      'timeline bob changed',
      seen({
        timelines: new Map([
          ['alice', '7,a 2026-11-10T08:00:00Z'],
          ['bob', '4,c 2026-11-10T09:00:00Z'],
        ]),
      }),
    ],
    ['timeline carol is new in the list', seen({ timelines: new Map([...seen().timelines, ['carol', '1,x t']]) })],
    ['timeline bob left the list', seen({ timelines: new Map([['alice', '7,a 2026-11-10T08:00:00Z']]) })],
    [
      'timeline alice changed',
      seen({
        timelines: new Map([
          ['alice', undefined],
          ['bob', '3,b 2026-11-09T17:00:00Z'],
        ]),
      }),
    ],
  ])('syncs when %s', (reason, observed) => {
    expect(watchVerdict(memory(), observed, T)).toEqual({ sync: true, reason, hourly: false })
  })

  it('syncs every interval while the backend cannot tell a change (no mark)', () => {
    expect(watchVerdict(memory({ sheetMark: undefined }), seen({ sheetMark: undefined }), T)).toMatchObject({ sync: true })
  })

  it('syncs once more after a sync whose own writes cannot be told from a person’s', () => {
    expect(watchVerdict(memory({ sheetMark: undefined }), seen(), T)).toEqual({
      sync: true,
      reason: 'the last sync wrote to the spreadsheet',
      hourly: false,
    })
  })

  it('syncs with a Sync log row once an hour has passed without one, and a sync due anyway writes it', () => {
    expect(watchVerdict(memory(), seen(), T + WATCH_LOG_EVERY_MS)).toEqual({
      sync: true,
      reason: 'an hour without a Sync log row',
      hourly: true,
    })
    expect(watchVerdict(memory(), seen({ sheetMark: '99' }), T + WATCH_LOG_EVERY_MS)).toEqual({
      sync: true,
      reason: 'the spreadsheet changed',
      hourly: true,
    })
    expect(watchVerdict(memory(), seen(), T + 10 * 60_000, 10 * 60_000)).toMatchObject({ hourly: true })
  })
})

describe('what the watch remembers after a sync', () => {
  it('keeps the mark seen before a sync that wrote nothing, and the time of the last row', () => {
    const m = rememberSync(seen(), { sheetWrites: 0, markAfterOwnWrite: undefined }, T + 5, memory({ loggedAt: T - 7 }), T - 100)
    expect(m).toEqual({ ...seen(), loggedAt: T - 7 })
  })

  it('takes the mark the backend knows its own write left, and the time of the write as the last row', () => {
    const m = rememberSync(seen(), { sheetWrites: 2, markAfterOwnWrite: '57' }, T + 5, memory(), T - 100)
    expect(m).toMatchObject({ sheetMark: '57', loggedAt: T + 5 })
  })

  it('keeps no mark after a write the backend cannot tell from a person’s, so the next interval looks', () => {
    const m = rememberSync(seen(), { sheetWrites: 1, markAfterOwnWrite: undefined }, T + 5, memory(), T - 100)
    expect(m.sheetMark).toBeUndefined()
    expect(watchVerdict(m, seen(), T + 6)).toMatchObject({ sync: true })
  })

  it('counts the first hour from the start of the watch when no sync has written yet', () => {
    const m = rememberSync(seen(), { sheetWrites: 0, markAfterOwnWrite: undefined }, T, undefined, T - 100)
    expect(m.loggedAt).toBe(T - 100)
  })
})
