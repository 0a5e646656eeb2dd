/**
 * An import whose write-back meets a row a manager protected against the tool's account (decisions/0021): the
 * server write is done and journaled, the row is left out of the sheet write, and the run says which protected
 * range held it and what to do, not that the row changed while it ran.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runExport } from '../../src/engine/export.ts'
import { runImport } from '../../src/engine/import.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { startGoogleWorld, type GoogleWorld } from './google-world.ts'

const TOKEN = 'import-protected-rows-token'
const now = () => new Date('2026-11-10T11:00:00Z')
let world: GoogleWorld

beforeAll(async () => {
  world = await startGoogleWorld(TOKEN, 'ts-import-protected-')
  await runExport(world.target, deps())
})

afterAll(async () => {
  await world?.close()
})

function deps() {
  return {
    client: world.client,
    spreadsheet: createGoogleSpreadsheet({
      spreadsheetId: world.spreadsheetId,
      auth: signInWithStaticToken(TOKEN),
      rootUrl: world.fake.rootUrl,
    }),
    stateDir: world.stateDir,
    reporter: silentReporter,
    now,
  }
}

describe('an import whose write-back meets a row protected against the tool', () => {
  it('sends the edit, leaves the row alone, and names the protected range in the Sync log', async () => {
    const header = world.manager.readTab(world.spreadsheetId, 'Activities')[0]!
    const notes = String.fromCharCode(65 + header.indexOf('Notes'))
    world.manager.editCell(world.spreadsheetId, 'Activities', `${notes}2`, 'Checked by the manager')
    createManager(world.fake.store, { as: 'manager@example.com' }).protectRange(world.spreadsheetId, 'Activities', 'A2:L2', {
      description: 'Reviewed',
    })
    const key = String(world.manager.readTab(world.spreadsheetId, 'Activities')[1]![header.indexOf('Key')])
    const summary = await runImport(world.target, deps(), {})
    expect(summary.counts.updated).toBe(1)
    expect(summary.result).toBe('incomplete')
    const [timelineKey, id] = key.split('/')
    expect(world.server.store.activities(timelineKey!).find((a) => a.id === Number(id))?.notes).toBe('Checked by the manager')
    const log = world.manager.readTab(world.spreadsheetId, 'Sync log')
    const message = String(log[log.length - 1]![log[0]!.indexOf('Message')])
    expect(message).toContain(`Row 2 lies in the protected range "Reviewed" ('Activities'!A2:L2)`)
    expect(message).not.toContain('changed in the sheet while this import ran')
  })
})
