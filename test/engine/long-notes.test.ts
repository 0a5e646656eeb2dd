/**
 * An activity whose notes are longer than a Google cell holds (50,000 characters), among the others: the export
 * lands every row (Google would refuse the whole batch for that one cell), the row shows the notes shortened,
 * and an import afterwards sends nothing back over them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { CELL_CHARS, SHORTENED_MARKER } from '../../src/core/notes-cell.ts'
import { runExport } from '../../src/engine/export.ts'
import { runImport } from '../../src/engine/import.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { startGoogleWorld, type GoogleWorld } from './google-world.ts'

const TOKEN = 'static-long-notes-token'
const T0 = Date.parse('2026-11-10T11:00:00Z')
let world: GoogleWorld
let key: string
const NOTES = `${'a long protocol '.repeat(4_000)}end`

beforeAll(async () => {
  world = await startGoogleWorld(TOKEN, 'ts-long-notes-')
  const created = world.server.store.createActivity(world.timelineKey, {
    tags: 'Acme Corp, Website, Build',
    notes: NOTES,
    start: '2026-11-05T09:00:00+01:00',
    duration: 3600,
  })
  key = `${world.timelineKey}/${created.id}`
})

afterAll(async () => {
  await world?.close()
})

function depsAt(at: number) {
  return {
    client: world.client,
    spreadsheet: createGoogleSpreadsheet({
      spreadsheetId: world.spreadsheetId,
      auth: signInWithStaticToken(TOKEN),
      rootUrl: world.fake.rootUrl,
    }),
    stateDir: world.stateDir,
    reporter: silentReporter,
    now: () => new Date(at),
  }
}

function cellOf(column: string): string {
  const rows = world.manager.readTab(world.spreadsheetId, 'Activities')
  return String(rows.find((r) => r[rows[0]!.indexOf('Key')] === key)?.[rows[0]!.indexOf(column)] ?? '')
}

describe('notes longer than a cell', () => {
  it('are exported shortened among the other rows, and an import sends nothing back over them', async () => {
    // Longer than the code's cell limit, whatever it is set to: else the test would shorten nothing.
    expect(NOTES.length).toBeGreaterThan(CELL_CHARS)
    const exported = await runExport(world.target, depsAt(T0))
    expect(exported.result).toBe('success')
    expect(exported.counts.created).toBeGreaterThan(20)
    const shown = cellOf('Notes')
    expect(shown.length).toBeLessThanOrEqual(50_000)
    expect(shown.endsWith(SHORTENED_MARKER)).toBe(true)

    const imported = await runImport(world.target, depsAt(T0 + 60_000))
    expect(imported.result).toBe('success')
    expect(imported.counts).toMatchObject({ created: 0, updated: 0, deleted: 0 })
    expect(
      world.server.store
        .overlapping(world.timelineKey, Date.parse('2026-11-05T00:00:00Z'), Date.parse('2026-11-06T00:00:00Z'))
        .find((a) => a.notes === NOTES),
    ).toBeDefined()
  })
})
