import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { TimelineSheetsError } from '../../src/errors.ts'
import { openSpreadsheet, type GoogleBackendModule } from '../../src/sheets/open.ts'
import type { Spreadsheet } from '../../src/sheets/port.ts'
import type { WorkbookLogEvent } from '../../src/sheets/workbook/backend.ts'

const folders: string[] = []
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true })
})

describe('openSpreadsheet', () => {
  it('opens a workbook target with its options and log', async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'timeline-sheets-open-'))
    folders.push(folder)
    const events: WorkbookLogEvent[] = []
    const sheet = await openSpreadsheet({ kind: 'workbook', path: path.join(folder, 'a.xlsx'), protect: false }, { workbookLog: (event) => events.push(event) })
    expect(sheet.kind).toBe('workbook')
    expect(sheet.describe()).toBe(path.join(folder, 'a.xlsx'))
    await sheet.ensureLayout([{ title: 'T', columns: [{ name: 'A', kind: 'text' }] }], { timeZone: 'UTC' })
    expect(events.map((event) => event.action)).toEqual(['save'])
  })

  it('hands a Google target and the shared Google options to createGoogleSpreadsheet', async () => {
    const received: unknown[] = []
    const fake = { kind: 'google' } as unknown as Spreadsheet
    const loadGoogleBackend = async (): Promise<GoogleBackendModule> => ({
      createGoogleSpreadsheet: (options) => {
        received.push(options)
        return fake
      },
    })
    const sheet = await openSpreadsheet(
      { kind: 'google', spreadsheetId: 'abc', rootUrl: 'http://127.0.0.1:1/' },
      { google: { auth: 'sign-in', rootUrl: 'overridden by the target' }, loadGoogleBackend },
    )
    expect(sheet).toBe(fake)
    expect(received).toEqual([{ auth: 'sign-in', spreadsheetId: 'abc', rootUrl: 'http://127.0.0.1:1/' }])
  })

  it('says the Google backend could not be loaded, naming the spreadsheet', async () => {
    const failing = openSpreadsheet({ kind: 'google', spreadsheetId: 'abc' }, { loadGoogleBackend: () => Promise.reject(new Error('Cannot find module')) })
    await expect(failing).rejects.toBeInstanceOf(TimelineSheetsError)
    await expect(failing).rejects.toMatchObject({ code: 'TS_INTERNAL', message: expect.stringContaining('abc') })
  })
})
