/**
 * The import's sheet write-back, after the server writes: every row is found
 * again on a fresh read — by its unique Key, else by the cells the plan read
 * (a pasted copy of a Key, a keyless row) — and written only there, never to
 * "the row that has that Key" (decisions/0003-rows-that-move.md). A row a
 * person edited again since the plan's read keeps that edit: only the cells
 * that record what the server now holds (Key, Base) and its Status are
 * written, and the next import sends the newer edit.
 */
import { activityChanges, withChanges } from './changes.ts'
import { ACTIVITY_COLUMN as C, type HeaderLayout } from './columns.ts'
import { fingerprintOf } from './fingerprint.ts'
import { type Decision } from './plan.ts'
import { keyText, locateRows, sameCells } from './row-identity.ts'
import { cellsToRestore, type RowNotice } from './row-outcome.ts'
import { activityToCells, cellUpdatesFor } from './row-write.ts'
import type { ServerActivity } from './row-context.ts'
import { activityKey } from './activity-key.ts'
import type { CellUpdate, CellValue, TabData, TabWrite } from './sheet.ts'
import { changedCells, statusOf } from './sheet-writes.ts'
import { saysStatus, statusText, type Status } from './status.ts'
import type { WriteOutcome } from './server-writes.ts'
import type { DayStart } from './day-start.ts'

export interface WriteBack {
  write: TabWrite
  /** Key → fingerprint the state remembers; `null` forgets the key. */
  base: Map<string, string | null>
  /** Plan rows that could not be found again (a person removed or changed them): their Status was not written. */
  lost: number[]
}

export function sheetWriteBack(
  planned: TabData,
  fresh: TabData,
  layout: HeaderLayout,
  outcomes: WriteOutcome[],
  decisions: Decision[],
  target: { timeZone: string; dayStart?: DayStart; deletedRows: 'remove' | 'mark' },
  today: string,
  server: Map<string, ServerActivity>,
  /** Plan row → the pending mark written into its Key cell before its activity was created. */
  marks: ReadonlyMap<number, string> = new Map(),
  /** Plan row → a Status for a row no decision speaks of (a row of a period approved anew). */
  rowStatuses: ReadonlyMap<number, Status> = new Map(),
): WriteBack {
  const updates: CellUpdate[] = []
  const deleteRows: number[] = []
  const base = new Map<string, string | null>()
  const lost: number[] = []
  const keyColumn = layout.index[C.key]!
  const statusIndex = layout.index[C.status]!

  // Where each planned row is on the fresh read.
  const wanted = new Set<number>()
  for (const d of decisions) if ('rowNumber' in d && d.rowNumber !== undefined) wanted.add(d.rowNumber)
  for (const o of outcomes) if ('rowNumber' in o.decision) wanted.add(o.decision.rowNumber)
  for (const rowNumber of rowStatuses.keys()) wanted.add(rowNumber)
  const freshByKey = rowsByKey(fresh, keyColumn)
  const byContent = locateRows(planned, fresh, [...wanted], keyColumn)
  const located = new Map<number, { row: number; edited: boolean }>()
  for (const rowNumber of wanted) {
    const cells = planned.rows[rowNumber - 2] ?? []
    const whereByContent = byContent.get(rowNumber)
    const mark = marks.get(rowNumber)
    if (mark !== undefined) {
      // A marked new row: the mark is its identity; anything else in it may have been typed since.
      const found = freshByKey.get(mark)
      if (found?.length === 1) {
        const now = fresh.rows[found[0]! - 2] ?? []
        const without = (row: readonly CellValue[]) => row.map((v, i) => (i === keyColumn ? null : v))
        located.set(rowNumber, { row: found[0]!, edited: !sameCells(without(now), without(cells)) })
      }
    } else if (whereByContent?.kind === 'found') {
      located.set(rowNumber, { row: whereByContent.row, edited: false })
    } else if (whereByContent?.kind === 'changed') {
      // A unique Key is the row's identity even after a person typed into it again.
      located.set(rowNumber, { row: whereByContent.row, edited: true })
    }
  }

  const stamped = (status: Status) => statusText(status, today)
  // Tool cells someone typed over (Duration) are put back, and the row's Status says so.
  const notices = new Map<number, RowNotice[]>()
  for (const d of decisions) if ('rowNumber' in d && d.rowNumber !== undefined && d.notices?.length) notices.set(d.rowNumber, d.notices)
  const statusWritten = new Set<number>()
  const withNotices = (rowNumber: number, status: Status): Status => {
    const list = notices.get(rowNumber)
    return list ? { word: status.word, reason: `${status.reason} ${list.map((n) => `${n.message}.`).join(' ')}` } : status
  }
  const at = (rowNumber: number): { row: number; edited: boolean } | undefined => {
    const where = located.get(rowNumber)
    if (!where && !lost.includes(rowNumber)) lost.push(rowNumber)
    return where
  }
  const setStatus = (rowNumber: number, status: Status) => {
    const where = at(rowNumber)
    if (!where) return
    statusWritten.add(rowNumber)
    const said = withNotices(rowNumber, status)
    if (saysStatus(fresh.rows[where.row - 2]?.[statusIndex], said)) return
    updates.push(...cellUpdatesFor(where.row, { [C.status]: stamped(said), ...cellsToRestore(notices.get(rowNumber)) }, layout))
  }
  /** The server's version in the row, or — when a person edited the row again since the plan read it — only what records it. */
  const showServerVersion = (rowNumber: number, activity: ServerActivity, status: Status) => {
    const where = at(rowNumber)
    if (!where) return
    statusWritten.add(rowNumber)
    const cells = activityToCells(
      activity.activity,
      activity.user,
      target.timeZone,
      stamped(withNotices(rowNumber, status)),
      undefined,
      target.dayStart,
    )
    const again: Status = {
      word: 'Waiting',
      reason: `${status.reason} You changed the row again meanwhile; that change goes to the server with the next import.`,
    }
    const written = where.edited
      ? {
          [C.key]: cells[C.key],
          [C.base]: cells[C.base],
          [C.status]: stamped(withNotices(rowNumber, again)),
          ...cellsToRestore(notices.get(rowNumber)),
        }
      : cells
    updates.push(...cellUpdatesFor(where.row, changedCells(fresh.rows[where.row - 2] ?? [], written, layout), layout))
  }

  for (const o of outcomes) {
    const d = o.decision
    if (o.status === 'done' || o.status === 'adopted') {
      if (d.kind === 'import-post' || d.kind === 'import-put') {
        const activity: ServerActivity = { activity: o.activity!, user: o.user ?? d.user }
        base.set(activityKey(activity.activity.timelineKey, activity.activity.entityId), fingerprintOf(activity))
        const before = d.kind === 'import-put' ? server.get(d.key)?.activity : undefined
        const saved = before
          ? withChanges('Saved to the server.', activityChanges(before, activity.activity, target.timeZone, target.dayStart))
          : 'Saved to the server.'
        const reason = d.kind === 'import-post' ? 'Created on the server.' : saved
        showServerVersion(d.rowNumber, activity, { word: 'Done', reason })
      } else {
        base.set(d.key, null)
        if (d.kind === 'import-delete') removeOrMark(d.rowNumber)
      }
    } else if ('rowNumber' in d) {
      setStatus(d.rowNumber, { word: o.status === 'conflict' ? 'Conflict' : 'Error', reason: o.message ?? 'Not saved.' })
    }
  }
  for (const d of decisions) {
    if (d.kind === 'conflict' || d.kind === 'invalid') {
      const warnings = d.warnings.length ? ` (${d.warnings.map((w) => w.message).join('; ')})` : ''
      setStatus(d.rowNumber, { word: d.word, reason: `${d.reason}${warnings}` })
    } else if (d.kind === 'forget') {
      base.set(d.key, null)
    } else if (d.kind === 'noop' && d.sheet === 'added' && d.rowNumber !== undefined) {
      // A new row with Delete ticked: say why nothing happened, rather than nothing.
      setStatus(d.rowNumber, { word: d.word, reason: `${d.reason} Delete the row when you no longer need it.` })
    } else if (d.kind === 'refresh-base') {
      base.set(d.key, d.fingerprint)
      const s = server.get(d.key)
      const where = d.rowNumber === undefined ? undefined : at(d.rowNumber)
      if (where && d.rowNumber !== undefined) {
        // An edit the server already holds (a run killed before its write-back): write the row
        // as the server has it, so the cells the tool owns (Duration) follow the edit too.
        if (d.sheet === 'changed' && s && fingerprintOf(s) === d.fingerprint) showServerVersion(d.rowNumber, s, statusOf(d))
        else if (fresh.rows[where.row - 2]?.[layout.index[C.base]!] !== d.fingerprint)
          updates.push(...cellUpdatesFor(where.row, { [C.base]: d.fingerprint }, layout))
      }
    } else if (d.kind === 'export-remove' && d.sheet === 'deleted') {
      // Delete ticked and the activity is gone (a run killed after its DELETE): the wish is fulfilled.
      base.set(d.key, null)
      removeOrMark(d.rowNumber)
    }
  }
  for (const [rowNumber, status] of rowStatuses) if (!statusWritten.has(rowNumber)) setStatus(rowNumber, status)
  for (const rowNumber of notices.keys())
    if (!statusWritten.has(rowNumber) && !deleteRows.includes(located.get(rowNumber)?.row ?? -1))
      setStatus(rowNumber, { word: 'Done', reason: 'In step with the server.' })
  return { write: { tab: fresh.title, keyColumn, updates, deleteRows }, base, lost }

  function removeOrMark(rowNumber: number): void {
    if (target.deletedRows === 'mark') {
      setStatus(rowNumber, { word: 'Deleted', reason: 'Deleted on the server.' })
      return
    }
    const where = at(rowNumber)
    if (!where) return
    const kept = 'Deleted on the server. You changed this row after ticking Delete, so it was kept; delete it when you no longer need it.'
    if (where.edited) setStatus(rowNumber, { word: 'Deleted', reason: kept })
    else deleteRows.push(where.row)
  }
}

function rowsByKey(tab: TabData, keyColumn: number): Map<string, number[]> {
  const out = new Map<string, number[]>()
  tab.rows.forEach((cells: CellValue[], i) => {
    const key = keyText(cells, keyColumn)
    if (key === undefined) return
    const list = out.get(key)
    if (list) list.push(i + 2)
    else out.set(key, [i + 2])
  })
  return out
}
