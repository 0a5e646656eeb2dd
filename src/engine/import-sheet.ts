/** The import's sheet write-back: rows found again by Key (new rows by their values) on a fresh read, never by planned position. */
import { ACTIVITY_COLUMN as C, type HeaderLayout } from '../core/columns.ts'
import { fingerprintOf, type Decision } from '../core/plan.ts'
import { activityKey, activityToCells, cellUpdatesFor, parseRow, type RowContext, type ServerActivity } from '../core/rows.ts'
import type { CellUpdate, TabData, TabWrite } from '../sheets/port.ts'
import type { TargetConfig } from '../config/schema.ts'
import { withoutStamp } from './sheet-writes.ts'
import type { WriteOutcome } from './import.ts'

export function sheetWriteBack(
  tab: TabData,
  layout: HeaderLayout,
  outcomes: WriteOutcome[],
  decisions: Decision[],
  target: TargetConfig,
  today: string,
  server: Map<string, ServerActivity>,
): { write: TabWrite; base: Map<string, string | null> } {
  const updates: CellUpdate[] = []
  const deleteRows: number[] = []
  const base = new Map<string, string | null>()
  const keyIndex = layout.index[C.key]!
  const statusIndex = layout.index[C.status]!
  const rowOfKey = new Map<string, number>()
  tab.rows.forEach((cells, i) => {
    const k = cells[keyIndex]
    if (typeof k === 'string' && k.trim()) rowOfKey.set(k.trim(), i + 2)
  })
  const stamped = (reason: string) => `${today}: ${reason}`
  const setStatus = (rowNumber: number, reason: string) => {
    const current = tab.rows[rowNumber - 2]?.[statusIndex]
    if (typeof current === 'string' && withoutStamp(current) === reason) return
    updates.push(...cellUpdatesFor(rowNumber, { [C.status]: stamped(reason) }, layout))
  }
  const claimed = new Set<number>()
  const newRowFor = (d: Extract<Decision, { kind: 'import-post' }>): number | undefined => {
    // The row as planned, if it is still there unchanged; else the first keyless row with the same values.
    const ctx: RowContext = { timeZone: target.timeZone, users: [], server: new Map(), baseKeys: new Set() }
    const matches = (rowNumber: number) => {
      const cells = tab.rows[rowNumber - 2]
      if (!cells || claimed.has(rowNumber)) return false
      const k = cells[keyIndex]
      if (typeof k === 'string' && k.trim()) return false
      const parsed = parseRow(cells, layout, { ...ctx, users: [{ username: d.user, tagsTimelineKey: d.timelineKey }] })
      return parsed.ok && parsed.row?.kind === 'new' && parsed.row.values.fingerprint === d.fingerprint
    }
    if (matches(d.rowNumber)) return d.rowNumber
    for (let r = 2; r < tab.rows.length + 2; r++) if (matches(r)) return r
    return undefined
  }

  for (const o of outcomes) {
    const d = o.decision
    if (o.status === 'done' || o.status === 'adopted') {
      if (d.kind === 'import-post' || d.kind === 'import-put') {
        const rowNumber = d.kind === 'import-post' ? newRowFor(d) : rowOfKey.get(d.key)
        const activity = o.activity!
        const key = activityKey(activity.timelineKey, activity.entityId)
        const cells = activityToCells(activity, o.user ?? d.user, target.timeZone, stamped(d.kind === 'import-post' ? 'Created on the server.' : 'Saved to the server.'))
        base.set(key, cells[C.base] as string)
        if (rowNumber !== undefined) {
          claimed.add(rowNumber)
          updates.push(...cellUpdatesFor(rowNumber, cells, layout))
        }
      } else {
        base.set(d.key, null)
        const rowNumber = rowOfKey.get(d.key)
        if (rowNumber !== undefined) {
          if (target.deletedRows === 'mark') setStatus(rowNumber, 'Deleted on the server.')
          else deleteRows.push(rowNumber)
        }
      }
    } else {
      const rowNumber = d.kind === 'import-post' ? newRowFor(d) : 'key' in d ? rowOfKey.get(d.key) : undefined
      if (rowNumber !== undefined) setStatus(rowNumber, o.message ?? 'Not saved.')
    }
  }
  for (const d of decisions) {
    if (d.kind === 'conflict' || d.kind === 'invalid') {
      const rowNumber = d.key !== undefined && d.kind === 'conflict' ? rowOfKey.get(d.key) : locateInvalid(d, tab, rowOfKey)
      const warnings = d.warnings.length ? ` (${d.warnings.map((w) => w.message).join('; ')})` : ''
      if (rowNumber !== undefined) setStatus(rowNumber, `${d.reason}${warnings}`)
    } else if (d.kind === 'forget') {
      base.set(d.key, null)
    } else if (d.kind === 'noop' && d.sheet === 'added' && d.rowNumber !== undefined) {
      // A new row with Delete ticked: say why nothing happened, rather than nothing.
      setStatus(d.rowNumber, `${d.reason} Delete the row when you no longer need it.`)
    } else if (d.kind === 'refresh-base') {
      const rowNumber = rowOfKey.get(d.key)
      const s = server.get(d.key)
      if (rowNumber !== undefined) {
        // An edit the server already holds (a run killed before its write-back): write the row
        // as the server has it, so the cells the tool owns (Duration) follow the edit too.
        if (d.sheet === 'changed' && s && fingerprintOf(s) === d.fingerprint) updates.push(...cellUpdatesFor(rowNumber, activityToCells(s.activity, s.user, target.timeZone, stamped(d.reason)), layout))
        else if (tab.rows[rowNumber - 2]?.[layout.index[C.base]!] !== d.fingerprint) updates.push(...cellUpdatesFor(rowNumber, { [C.base]: d.fingerprint }, layout))
      }
      base.set(d.key, d.fingerprint)
    } else if (d.kind === 'export-remove' && d.sheet === 'deleted') {
      // Delete ticked and the activity is gone (a run killed after its DELETE): the wish is fulfilled.
      base.set(d.key, null)
      const rowNumber = rowOfKey.get(d.key)
      if (rowNumber !== undefined) {
        if (target.deletedRows === 'mark') setStatus(rowNumber, 'Deleted on the server.')
        else deleteRows.push(rowNumber)
      }
    }
  }
  return { write: { tab: tab.title, updates, deleteRows }, base }
}

function locateInvalid(d: Extract<Decision, { kind: 'invalid' | 'conflict' }>, tab: TabData, rowOfKey: Map<string, number>): number | undefined {
  if (d.key !== undefined && rowOfKey.has(d.key)) return rowOfKey.get(d.key)
  // Keyless: still where it was if nothing moved (a Status is only a message; a wrong guess costs nothing lasting).
  return d.rowNumber !== undefined && d.rowNumber - 2 < tab.rows.length ? d.rowNumber : undefined
}
