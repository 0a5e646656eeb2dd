/**
 * Drive's `version` behind a Sheets edit (`driveVersionLagMs`): Drive promises a version that "reflects every
 * change made to the file on the server" and does not say how soon; with a lag, files.get shows the version and
 * modification time as they stood that long before, every change in its turn, none skipped for good.
 */
import { beforeEach, describe, expect, it } from 'vitest'
import { DRIVE_METADATA_READONLY_SCOPE, driveVersionOf } from './drive-files.ts'
import { createManager } from './manager.ts'
import type { SheetsStore } from './store.ts'
import { type ManualClock, mountSheetsApi, SHEETS_ROOT, testStore } from './test-support.ts'

const LAG = 3 * 60_000
let store: SheetsStore
let clock: ManualClock
mountSheetsApi(() => store)

beforeEach(() => {
  ;({ store, clock } = testStore({ driveVersionLagMs: LAG }))
  store.auth.addStaticToken('drive-token', { scopes: [DRIVE_METADATA_READONLY_SCOPE] })
})

async function shown(id: string): Promise<{ version: string; modifiedTime: string }> {
  const response = await fetch(`${SHEETS_ROOT}drive/v3/files/${id}?fields=version,modifiedTime`, {
    headers: { authorization: 'Bearer drive-token' },
  })
  return (await response.json()) as { version: string; modifiedTime: string }
}

describe('Drive version lag (driveVersionLagMs)', () => {
  it('shows a change only once the lag has passed, with the time it was made', async () => {
    const id = store.createSpreadsheet({ title: 'T' }).spreadsheetId
    const created = await shown(id)
    clock.advance(10_000)
    const madeAt = new Date(clock.now()).toISOString()
    createManager(store).editCell(id, 'Sheet1', 'A1', 'typed')
    expect(await shown(id)).toEqual(created)
    clock.advance(LAG - 1)
    expect(await shown(id)).toEqual(created)
    clock.advance(1)
    const after = await shown(id)
    expect(Number(after.version)).toBeGreaterThan(Number(created.version))
    expect(after.modifiedTime).toBe(madeAt)
    expect(driveVersionOf(store, id)).toBe(after.version)
  })

  it('shows changes made a minute apart one after the other, and every change in the end', async () => {
    const id = store.createSpreadsheet({ title: 'T' }).spreadsheetId
    const person = createManager(store)
    const seen: number[] = [Number((await shown(id)).version)]
    for (const cell of ['A1', 'A2', 'A3']) {
      person.editCell(id, 'Sheet1', cell, cell)
      clock.advance(60_000)
      seen.push(Number((await shown(id)).version))
    }
    // Minutes 1 and 2 still show the file as created; minute 3 shows the first edit.
    expect(seen[1]).toBe(seen[0])
    expect(seen[2]).toBe(seen[0])
    expect(seen[3]).toBeGreaterThan(seen[0]!)
    clock.advance(LAG)
    const last = Number((await shown(id)).version)
    expect(last).toBeGreaterThan(seen[3]!)
    expect(last).toBe(store.spreadsheets.get(id)!.drive.version)
  })
})
