/**
 * runUndo over an in-memory Timeline client: a concurrency rejection makes it
 * re-read the timeline and decide again (an activity changed meanwhile becomes
 * a conflict, the rest goes on); the undo journals its writes under its own
 * run id; an undo killed half-way and run again creates nothing twice and
 * closes the interrupted journal.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { TargetConfig } from '../../src/config/schema.ts'
import { runUndo } from '../../src/engine/undo.ts'
import { fingerprintFor } from '../../src/core/undo-plan.ts'
import { ConcurrencyError, TimelineSheetsError } from '../../src/errors.ts'
import { silentReporter } from '../../src/cli/reporter.ts'
import type { Spreadsheet } from '../../src/sheets/port.ts'
import { journalFile, openJournal, readJournal } from '../../src/state/journal.ts'
import { stateLocation } from '../../src/state/target-state.ts'
import type { TimelineClient } from '../../src/timeline/client.ts'
import type { Activity, ActivityInput, TimelineInfo } from '../../src/timeline/model.ts'

const TL = 'tl-1'
const OWNER = 'alice'
const info: TimelineInfo = {
  timelineKey: TL,
  ownerUsername: OWNER,
  ownerDisplayName: 'Alice',
  schemaName: 'ManicTime/Tags',
  lastChangeId: '1,a',
  timestamp: undefined,
  links: [],
}
const target = {
  name: 'team',
  timeZone: 'Europe/Berlin',
  tabs: { activities: 'Activities', allowedTags: 'Allowed tags', syncLog: 'Sync log' },
} as unknown as TargetConfig
const v = (notes: string): ActivityInput => ({ tags: ['Acme', 'Build'], notes, start: '2026-11-09T09:00:00+01:00', duration: 3600 })
const fp = (input: ActivityInput) => fingerprintFor(OWNER, input)

function fakeServer(initial: [number, ActivityInput][]) {
  const activities = new Map<number, Activity>(initial.map(([id, a]) => [id, { timelineKey: TL, entityId: id, ...a, isActive: undefined }]))
  let nextId = 100
  const calls: string[] = []
  let beforeNextWrite: (() => void) | undefined
  const write = (what: string) => {
    calls.push(what)
    if (beforeNextWrite) {
      const hook = beforeNextWrite
      beforeNextWrite = undefined
      hook()
      throw new ConcurrencyError(TL, '1,a', 'The timeline changed.')
    }
  }
  const client = {
    tagsTimelines: async () => [info],
    // Export reads them before its layout (the Summary lists their clients and projects).
    readAllowedTags: async () => ({ everyone: [], groups: [] }),
    readActivities: async () => {
      calls.push('read')
      return {
        timeline: info,
        activities: [...activities.values()].map((a) => ({ ...a, tags: [...a.tags] })),
        deletedActivityIds: undefined,
        updatedActivitiesUrl: undefined,
      }
    },
    setLastChangeId: () => undefined,
    createActivity: async (_t: unknown, input: ActivityInput) => {
      write('post')
      const a: Activity = { timelineKey: TL, entityId: nextId++, ...input, isActive: undefined }
      activities.set(a.entityId, a)
      return { timeline: info, activity: a }
    },
    updateActivity: async (_t: unknown, id: number, input: ActivityInput) => {
      write(`put ${id}`)
      const a: Activity = { timelineKey: TL, entityId: id, ...input, isActive: undefined }
      activities.set(id, a)
      return { timeline: info, activity: a }
    },
    identity: async () => ({ entryUrl: 'http://timeline.invalid/api', account: undefined }),
    deleteActivity: async (_t: unknown, id: number) => {
      write(`delete ${id}`)
      if (!activities.delete(id)) throw new TimelineSheetsError('TS_NOT_FOUND', 'gone')
      return { timeline: info, activity: undefined }
    },
  } as unknown as TimelineClient
  return { client, activities, calls, onNextWrite: (hook: () => void) => (beforeNextWrite = hook) }
}

const spreadsheet = {
  kind: 'workbook',
  describe: () => 'stub',
  read: async () => ({ tabs: {} }),
  write: async () => ({}),
  requestCounts: () => ({ reads: 0, writes: 0 }),
} as unknown as Spreadsheet

/** An import run that created 10 (a1), updated 11 (b0 → b1) and deleted 12 (c0). */
async function importJournal(stateDir: string): Promise<string> {
  const folder = stateLocation(stateDir, target.name).journalFolder
  const j = await openJournal(folder, '20261110T110000Z-imp1', 'import')
  let id = await j.intend({ op: 'post', timelineKey: TL, user: OWNER, fingerprint: fp(v('a1')), input: v('a1') })
  await j.done(id, { entityId: 10, fingerprint: fp(v('a1')), after: v('a1') })
  id = await j.intend({
    op: 'put',
    timelineKey: TL,
    entityId: 11,
    user: OWNER,
    fingerprint: fp(v('b1')),
    input: v('b1'),
    before: v('b0'),
    beforeFingerprint: fp(v('b0')),
  })
  await j.done(id, { entityId: 11, fingerprint: fp(v('b1')), after: v('b1') })
  id = await j.intend({ op: 'delete', timelineKey: TL, entityId: 12, user: OWNER, before: v('c0'), beforeFingerprint: fp(v('c0')) })
  await j.done(id, { entityId: 12 })
  await j.end('success')
  return '20261110T110000Z-imp1'
}

const notes = (m: Map<number, Activity>) => [...m.values()].map((a) => a.notes).sort()

describe('runUndo', () => {
  it('re-reads after a concurrency rejection: what changed meanwhile is a conflict, the rest is undone and journaled', async () => {
    const stateDir = await mkdtemp(path.join(tmpdir(), 'undo-run-'))
    const runId = await importJournal(stateDir)
    const fake = fakeServer([
      [10, v('a1')],
      [11, v('b1')],
      [20, v('unrelated')],
    ])
    // Someone edits activity 11 just as the undo sends its first write.
    fake.onNextWrite(() => fake.activities.set(11, { timelineKey: TL, entityId: 11, ...v('edited meanwhile'), isActive: undefined }))
    const summary = await runUndo(
      target,
      runId,
      { client: fake.client, spreadsheet, stateDir, reporter: silentReporter, runId: '20261110T120000Z-und1' },
      { export: false },
    )

    expect(summary.result).toBe('partial')
    expect(summary.counts).toMatchObject({ deleted: 1, restored: 0, recreated: 1, conflicts: 1, failed: 0 })
    expect(summary.plan.conflicts.map((c) => c.key)).toEqual([`${TL}/11`])
    expect(notes(fake.activities)).toEqual(['c0', 'edited meanwhile', 'unrelated'])
    expect(fake.calls.filter((c) => c === 'read')).toHaveLength(2)

    const journal = await readJournal(journalFile(stateLocation(stateDir, target.name).journalFolder, '20261110T120000Z-und1'))
    expect(journal).toMatchObject({ command: 'undo', undoes: runId, ended: true })
    expect(
      journal.writes
        .filter((w) => w.outcome?.type === 'done')
        .map((w) => w.intent.op)
        .sort(),
    ).toEqual(['delete', 'post'])
  })

  it('an undo killed after re-creating an activity, run again, creates nothing twice and closes the interrupted journal', async () => {
    const stateDir = await mkdtemp(path.join(tmpdir(), 'undo-run-'))
    const runId = await importJournal(stateDir)
    const folder = stateLocation(stateDir, target.name).journalFolder
    // The killed undo: deleted 10 and put 11 back, sent the POST for 12 (it landed as 100), then died.
    const killed = await openJournal(folder, '20261110T115900Z-kill', 'undo', undefined, { undoes: runId })
    await killed.intend({ op: 'post', timelineKey: TL, user: OWNER, fingerprint: fp(v('c0')), input: v('c0') })
    const fake = fakeServer([
      [11, v('b0')],
      [100, v('c0')],
    ])

    const summary = await runUndo(
      target,
      runId,
      { client: fake.client, spreadsheet, stateDir, reporter: silentReporter },
      { export: false },
    )
    expect(summary.result).toBe('success')
    expect(summary.plan.writes).toEqual([])
    expect(summary.plan.nothing).toHaveLength(3)
    expect(fake.calls.filter((c) => c !== 'read')).toEqual([])
    expect(notes(fake.activities)).toEqual(['b0', 'c0'])
    expect((await readJournal(journalFile(folder, '20261110T115900Z-kill'))).ended).toBe(true)
  })

  it('an unknown run id is a usage error that lists the recent runs; a dry run writes nothing and takes no lock', async () => {
    const stateDir = await mkdtemp(path.join(tmpdir(), 'undo-run-'))
    const runId = await importJournal(stateDir)
    const fake = fakeServer([
      [10, v('a1')],
      [11, v('b1')],
    ])
    await expect(runUndo(target, 'nope', { client: fake.client, spreadsheet, stateDir, reporter: silentReporter })).rejects.toMatchObject({
      code: 'TS_USAGE',
      message: expect.stringContaining(runId),
    })
    await expect(
      runUndo(target, '../team/journal/x', { client: fake.client, spreadsheet, stateDir, reporter: silentReporter }),
    ).rejects.toMatchObject({ code: 'TS_USAGE' })
    const dry = await runUndo(target, runId, { client: fake.client, spreadsheet, stateDir, reporter: silentReporter }, { dryRun: true })
    expect(dry.applied).toBe(false)
    expect(dry.plan.writes.map((w) => w.kind).sort()).toEqual(['delete', 'recreate', 'restore'])
    expect(fake.calls.filter((c) => c !== 'read')).toEqual([])
  })

  it('declined at the prompt: nothing is written', async () => {
    const stateDir = await mkdtemp(path.join(tmpdir(), 'undo-run-'))
    const runId = await importJournal(stateDir)
    const fake = fakeServer([
      [10, v('a1')],
      [11, v('b1')],
    ])
    const summary = await runUndo(target, runId, {
      client: fake.client,
      spreadsheet,
      stateDir,
      reporter: silentReporter,
      confirm: async () => false,
    })
    expect(summary.applied).toBe(false)
    expect(fake.calls.filter((c) => c !== 'read')).toEqual([])
  })

  it('an export afterwards that fails leaves the undo its own result, and says how to show it in the sheet', async () => {
    const stateDir = await mkdtemp(path.join(tmpdir(), 'undo-run-'))
    const runId = await importJournal(stateDir)
    const fake = fakeServer([
      [10, v('a1')],
      [11, v('b1')],
    ])
    const unreachable = async () => {
      throw new TimelineSheetsError('TS_SHEETS_API', 'The spreadsheet is unreachable.')
    }
    let reads = 0
    const failingExport = {
      ...spreadsheet,
      // The first read is the undo's Sync log; what the export asks of the spreadsheet fails.
      read: async () => (++reads > 1 ? unreachable() : { tabs: {} }),
      ensureLayout: unreachable,
    } as unknown as Spreadsheet
    const exportable = {
      ...target,
      users: [],
      otherTimelines: [],
      deletedRows: 'remove',
      window: { days: 35, lookBackDays: 7 },
    } as TargetConfig
    const summary = await runUndo(exportable, runId, {
      client: fake.client,
      spreadsheet: failingExport,
      stateDir,
      reporter: silentReporter,
      now: () => new Date('2026-11-10T12:00:00Z'),
    })
    expect(summary).toMatchObject({ applied: true, result: 'success', exported: undefined })
    expect(summary.exportFailure).toContain('unreachable')
    expect(notes(fake.activities)).toEqual(['b0', 'c0'])
  })
})
