/**
 * The Google layout: the requests planLayout makes for a new and for an existing spreadsheet, its hash and
 * state; and the layout a manager opens, through the real @googleapis/sheets client against the Sheets fake:
 * no empty default tab left in front, a basic filter on Activities, counts as integers and times with their
 * zone.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createSheetsStore, type SheetsStore } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { activitiesTab, allowedTagsTab, syncLogTab } from '../../src/core/columns.ts'
import { isTimelineSheetsError } from '../../src/errors.ts'
import type { Spreadsheet, TabSpec } from '../../src/sheets/port.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { numberFormatFor } from '../../src/sheets/google/column-formats.ts'
import { planLayout } from '../../src/sheets/google/layout.ts'
import {
  LAYOUT_METADATA_KEY,
  layoutHash,
  layoutIsCurrent,
  newSheetId,
  readSpreadsheetState,
  type SpreadsheetState,
} from '../../src/sheets/google/layout-state.ts'
import { googleColor } from '../../src/sheets/google/status-colours.ts'
import { STATUS_RULES, statusRuleFormula } from '../../src/core/status.ts'
import { directClient } from './google-fixture.ts'

const activities: TabSpec = {
  title: 'Activities',
  statusColumn: 'Status',
  columns: [
    { name: 'User', kind: 'text' },
    { name: 'Date', kind: 'date' },
    { name: 'Start', kind: 'time' },
    { name: 'Duration', kind: 'duration', protected: true },
    { name: 'Tags', kind: 'text', dropdown: { tab: 'Allowed tags', column: 'Tags' } },
    { name: 'Notes', kind: 'text', wrap: true, width: 300 },
    { name: 'Delete', kind: 'checkbox' },
    { name: 'Status', kind: 'text', protected: true },
    { name: 'Key', kind: 'text', hidden: true, protected: true },
  ],
}
const allowed: TabSpec = {
  title: 'Allowed tags',
  columns: [
    { name: 'Applies to', kind: 'text' },
    { name: 'Tags', kind: 'text' },
  ],
}
const log: TabSpec = {
  title: 'Sync log',
  readOnly: true,
  columns: [
    { name: 'When', kind: 'datetime' },
    { name: 'Count', kind: 'number' },
  ],
}
const tabs = [activities, allowed, log]
const options = { timeZone: 'Europe/Ljubljana' }

const empty: SpreadsheetState = {
  timeZone: 'Etc/GMT',
  sheets: [
    { sheetId: 0, title: 'Sheet1', rowCount: 1000, columnCount: 26, frozenRowCount: 0, protectedRanges: [], conditionalFormats: [] },
  ],
  layoutMetadata: undefined,
}

function kinds(requests: sheets_v4.Schema$Request[]): string[] {
  return requests.map((r) => Object.keys(r)[0]!)
}

describe('number formats', () => {
  it('uses TIME with an elapsed pattern for durations: there is no DURATION type', () => {
    expect(numberFormatFor('duration')).toEqual({ type: 'TIME', pattern: '[h]:mm' })
    expect(numberFormatFor('date')).toEqual({ type: 'DATE', pattern: 'yyyy-mm-dd' })
    expect(numberFormatFor('time')).toEqual({ type: 'TIME', pattern: 'hh:mm' })
    expect(numberFormatFor('datetime')).toEqual({ type: 'DATE_TIME', pattern: 'yyyy-mm-dd hh:mm' })
    expect(numberFormatFor('text')).toEqual({ type: 'TEXT' })
    expect(numberFormatFor('checkbox')).toBeUndefined()
  })
})

describe('planLayout on a new spreadsheet', () => {
  const plan = planLayout(tabs, options, empty, new Map())

  it('adds the tabs with chosen ids, so later requests in the same batch can refer to them', () => {
    const added = plan.requests.filter((r) => r.addSheet).map((r) => r.addSheet!.properties!)
    expect(added.map((p) => p.title)).toEqual(['Activities', 'Allowed tags', 'Sync log'])
    expect(added[0]!.gridProperties).toEqual({ rowCount: 1000, columnCount: 9, frozenRowCount: 1 })
    expect(new Set(added.map((p) => p.sheetId)).size).toBe(3)
    expect(plan.createdTabs).toEqual(['Activities', 'Allowed tags', 'Sync log'])
  })

  it('writes the header as string values', () => {
    const header = plan.requests.find(
      (r) => r.updateCells && r.updateCells.range?.sheetId === plan.sheetIds.get('Activities'),
    )!.updateCells!
    expect(header.rows![0]!.values!.map((v) => v.userEnteredValue)).toEqual(activities.columns.map((c) => ({ stringValue: c.name })))
    expect(header.range).toMatchObject({ startRowIndex: 0, endRowIndex: 1, startColumnIndex: 0, endColumnIndex: 9 })
  })

  it('formats data rows by column kind, below the header', () => {
    const formats = plan.requests.filter((r) => r.repeatCell?.cell?.userEnteredFormat?.numberFormat).map((r) => r.repeatCell!)
    const duration = formats.find((f) => f.range?.startColumnIndex === 3 && f.range.sheetId === plan.sheetIds.get('Activities'))!
    expect(duration.cell!.userEnteredFormat!.numberFormat).toEqual({ type: 'TIME', pattern: '[h]:mm' })
    expect(duration.range).toMatchObject({ startRowIndex: 1 })
    const notes = formats.find((f) => f.range?.startColumnIndex === 5 && f.range.sheetId === plan.sheetIds.get('Activities'))!
    expect(notes.fields).toBe('userEnteredFormat.numberFormat,userEnteredFormat.wrapStrategy')
  })

  it('adds checkboxes and a non-strict dropdown fed from the allowed tags', () => {
    const rules = plan.requests.filter((r) => r.setDataValidation).map((r) => r.setDataValidation!)
    expect(rules.find((r) => r.range?.startColumnIndex === 6)!.rule!.condition).toEqual({ type: 'BOOLEAN' })
    const dropdown = rules.find((r) => r.range?.startColumnIndex === 4)!.rule!
    expect(dropdown).toEqual({
      condition: { type: 'ONE_OF_RANGE', values: [{ userEnteredValue: "='Allowed tags'!$B$2:$B" }] },
      showCustomUi: true,
      strict: false,
    })
  })

  it('hides the Key column and protects header, tool columns and read-only tabs with a warning', () => {
    const hidden = plan.requests.filter((r) => r.updateDimensionProperties?.properties?.hiddenByUser)
    expect(hidden.map((r) => r.updateDimensionProperties!.range!.startIndex)).toEqual([8])
    const protections = plan.requests.filter((r) => r.addProtectedRange).map((r) => r.addProtectedRange!.protectedRange!)
    expect(protections.every((p) => p.warningOnly === true)).toBe(true)
    expect(protections.map((p) => p.description)).toEqual([
      'timeline-sheets: Activities header',
      'timeline-sheets: Activities / Duration',
      'timeline-sheets: Activities / Status',
      'timeline-sheets: Activities / Key',
      'timeline-sheets: Allowed tags header',
      'timeline-sheets: Sync log',
    ])
    expect(protections[5]!.range).toEqual({ sheetId: plan.sheetIds.get('Sync log') })
  })

  it('colours rows by the word their status starts with, one rule per word of the core', () => {
    const rules = plan.requests.filter((r) => r.addConditionalFormatRule).map((r) => r.addConditionalFormatRule!.rule!)
    expect(rules.map((r) => r.booleanRule!.condition!.values![0]!.userEnteredValue)).toEqual(
      STATUS_RULES.map((r) => statusRuleFormula(r.word, 7, 1)),
    )
    expect(rules.map((r) => r.booleanRule!.condition!.type)).toEqual(STATUS_RULES.map(() => 'CUSTOM_FORMULA'))
    expect(statusRuleFormula('Conflict', 7)).toBe('=LEFT($H1,8)="Conflict"')
    const conflict = rules[STATUS_RULES.findIndex((r) => r.word === 'Conflict')]!
    expect(conflict.booleanRule!.format).toEqual({
      backgroundColor: googleColor('FFE0A0'),
      textFormat: { foregroundColor: googleColor('6B4500') },
    })
    expect(googleColor('FF8000')).toEqual({ red: 1, green: 0.502, blue: 0 })
    // From the header down: rows inserted under the header stay inside the range (the header's "Status" meets no rule).
    expect(rules[0]!.ranges).toEqual([{ sheetId: plan.sheetIds.get('Activities'), startColumnIndex: 0, endColumnIndex: 9 }])
  })

  it('sets the time zone and records the layout hash last', () => {
    expect(plan.requests).toContainEqual({
      updateSpreadsheetProperties: { properties: { timeZone: 'Europe/Ljubljana' }, fields: 'timeZone' },
    })
    expect(plan.requests[plan.requests.length - 1]).toEqual({
      createDeveloperMetadata: {
        developerMetadata: {
          metadataKey: LAYOUT_METADATA_KEY,
          metadataValue: layoutHash(tabs, options),
          location: { spreadsheet: true },
          visibility: 'DOCUMENT',
        },
      },
    })
  })

  it('refuses a dropdown whose source tab is not laid out, and a status column that does not exist', () => {
    const lonely = { ...activities, title: 'Lonely' }
    const error = (() => {
      try {
        planLayout([lonely], options, empty, new Map())
      } catch (e) {
        return e
      }
    })()
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_SHEET_LAYOUT')
    const badStatus = (() => {
      try {
        planLayout([{ ...allowed, statusColumn: 'Nope' }], options, empty, new Map())
      } catch (e) {
        return e
      }
    })()
    expect(isTimelineSheetsError(badStatus) && badStatus.code).toBe('TS_SHEET_LAYOUT')
  })
})

describe('planLayout on an existing spreadsheet', () => {
  it('finds moved columns by name and adds missing headers after the last one, never over another column', () => {
    const state: SpreadsheetState = {
      timeZone: 'Europe/Ljubljana',
      sheets: [
        {
          sheetId: 5,
          title: 'Allowed tags',
          rowCount: 100,
          columnCount: 2,
          frozenRowCount: 1,
          protectedRanges: [],
          conditionalFormats: [],
        },
      ],
      layoutMetadata: { metadataId: 9, value: 'old' },
    }
    const spec: TabSpec = {
      title: 'Allowed tags',
      columns: [
        { name: 'Applies to', kind: 'text' },
        { name: 'Tags', kind: 'text' },
        { name: 'Note', kind: 'text' },
      ],
    }
    const plan = planLayout([spec], { timeZone: 'Europe/Ljubljana' }, state, new Map([['Allowed tags', ['Tags', 'Applies to']]]))
    expect(plan.columns.get('Allowed tags')).toEqual(
      new Map([
        ['Tags', 0],
        ['Applies to', 1],
        ['Note', 2],
      ]),
    )
    expect(kinds(plan.requests)).not.toContain('addSheet')
    expect(plan.requests).toContainEqual({ appendDimension: { sheetId: 5, dimension: 'COLUMNS', length: 1 } })
    const header = plan.requests.filter((r) => r.updateCells).map((r) => r.updateCells!)
    expect(header).toEqual([
      {
        range: { sheetId: 5, startRowIndex: 0, endRowIndex: 1, startColumnIndex: 2, endColumnIndex: 3 },
        rows: [{ values: [{ userEnteredValue: { stringValue: 'Note' } }] }],
        fields: 'userEnteredValue',
      },
    ])
    expect(kinds(plan.requests)).not.toContain('updateSpreadsheetProperties')
    expect(kinds(plan.requests)).not.toContain('updateSheetProperties')
    expect(plan.requests[plan.requests.length - 1]).toEqual({
      updateDeveloperMetadata: {
        dataFilters: [{ developerMetadataLookup: { metadataId: 9 } }],
        developerMetadata: { metadataValue: layoutHash([spec], { timeZone: 'Europe/Ljubljana' }) },
        fields: 'metadataValue',
      },
    })
  })

  it('does not add protections or status colours that are already there, and replaces ours when they moved', () => {
    const first = planLayout(tabs, options, empty, new Map())
    const id = first.sheetIds.get('Activities')!
    const state: SpreadsheetState = {
      timeZone: options.timeZone,
      sheets: [
        {
          sheetId: id,
          title: 'Activities',
          rowCount: 1000,
          columnCount: 9,
          frozenRowCount: 1,
          protectedRanges: first.requests
            .filter((r) => r.addProtectedRange?.protectedRange?.range?.sheetId === id)
            .map((r, i) => ({ ...r.addProtectedRange!.protectedRange!, protectedRangeId: 100 + i })),
          conditionalFormats: [
            {
              ranges: [{ sheetId: id, startRowIndex: 1, startColumnIndex: 0, endColumnIndex: 9 }],
              booleanRule: { condition: { type: 'CUSTOM_FORMULA', values: [{ userEnteredValue: '=A2>3' }] } },
            },
            ...first.requests.filter((r) => r.addConditionalFormatRule).map((r) => r.addConditionalFormatRule!.rule!),
          ],
        },
      ],
      layoutMetadata: undefined,
    }
    const header = activities.columns.map((c) => c.name)
    const again = planLayout(
      [activities, allowed],
      options,
      { ...state, sheets: [...state.sheets, { ...empty.sheets[0]!, sheetId: 3, title: 'Allowed tags', frozenRowCount: 1 }] },
      new Map([
        ['Activities', header],
        ['Allowed tags', ['Applies to', 'Tags']],
      ]),
    )
    const forActivities = again.requests.filter((r) => JSON.stringify(r).includes(`"sheetId":${id}`))
    expect(kinds(forActivities)).not.toContain('addProtectedRange')
    expect(kinds(forActivities)).not.toContain('addConditionalFormatRule')
    expect(kinds(forActivities)).not.toContain('updateCells')

    // The Status column moved one to the right: our rules go (not the manager's), new ones come.
    const moved = [...header.slice(0, 7), 'Extra', ...header.slice(7)]
    const replanned = planLayout(
      [activities, allowed],
      options,
      { ...state, sheets: [...state.sheets, { ...empty.sheets[0]!, sheetId: 3, title: 'Allowed tags' }] },
      new Map([
        ['Activities', moved],
        ['Allowed tags', ['Applies to', 'Tags']],
      ]),
    )
    const deletes = replanned.requests.filter((r) => r.deleteConditionalFormatRule).map((r) => r.deleteConditionalFormatRule!.index)
    expect(deletes).toEqual(STATUS_RULES.map((_, i) => STATUS_RULES.length - i))
    // Status and Key moved: their protections are replaced; header and Duration stay.
    expect(replanned.requests.filter((r) => r.deleteProtectedRange).map((r) => r.deleteProtectedRange!.protectedRangeId)).toEqual([
      102, 103,
    ])
    const added = replanned.requests
      .filter((r) => r.addProtectedRange?.protectedRange?.range?.sheetId === id)
      .map((r) => r.addProtectedRange!.protectedRange!)
    expect(added.map((p) => [p.description, p.range?.startColumnIndex])).toEqual([
      ['timeline-sheets: Activities / Status', 8],
      ['timeline-sheets: Activities / Key', 9],
    ])
  })
})

describe('a closed tab (the Approved record)', () => {
  const closed: TabSpec = { title: 'Approved', readOnly: true, closed: true, columns: [{ name: 'User', kind: 'text' }] }

  it('is protected whole and not as a warning, naming no editors (Google makes the caller one)', () => {
    const plan = planLayout([closed], options, empty, new Map())
    const [protection, ...others] = plan.requests.filter((r) => r.addProtectedRange).map((r) => r.addProtectedRange!.protectedRange!)
    expect(others).toEqual([])
    expect(protection).toEqual({ range: { sheetId: plan.sheetIds.get('Approved') }, description: 'timeline-sheets: Approved' })
  })

  it('replaces a warning-only protection of ours on it, and keeps a closed one', () => {
    const first = planLayout([{ ...closed, closed: false }], options, empty, new Map())
    const id = first.sheetIds.get('Approved')!
    const held = (protection: sheets_v4.Schema$ProtectedRange): SpreadsheetState => ({
      timeZone: options.timeZone,
      sheets: [
        {
          sheetId: id,
          title: 'Approved',
          rowCount: 1000,
          columnCount: 1,
          frozenRowCount: 1,
          protectedRanges: [protection],
          conditionalFormats: [],
        },
      ],
      layoutMetadata: undefined,
    })
    const warning = { range: { sheetId: id }, description: 'timeline-sheets: Approved', warningOnly: true, protectedRangeId: 7 }
    const replaced = planLayout([closed], options, held(warning), new Map([['Approved', ['User']]]))
    expect(replaced.requests.filter((r) => r.deleteProtectedRange || r.addProtectedRange)).toEqual([
      { deleteProtectedRange: { protectedRangeId: 7 } },
      { addProtectedRange: { protectedRange: { range: { sheetId: id }, description: 'timeline-sheets: Approved' } } },
    ])
    const kept = planLayout([closed], options, held({ ...warning, warningOnly: undefined }), new Map([['Approved', ['User']]]))
    expect(kinds(kept.requests)).not.toContain('addProtectedRange')
  })
})

describe('status rules of an earlier version', () => {
  it('replaces the rules that looked for "conflict" and "error" with the word rules, and keeps a manager\'s own', () => {
    const first = planLayout([activities, allowed], options, empty, new Map())
    const id = first.sheetIds.get('Activities')!
    const range = { sheetId: id, startRowIndex: 1, startColumnIndex: 0, endColumnIndex: 9 }
    const rule = (formula: string): sheets_v4.Schema$ConditionalFormatRule => ({
      ranges: [range],
      booleanRule: {
        condition: { type: 'CUSTOM_FORMULA', values: [{ userEnteredValue: formula }] },
        format: { backgroundColor: { red: 1 } },
      },
    })
    const state: SpreadsheetState = {
      timeZone: options.timeZone,
      sheets: [
        {
          sheetId: id,
          title: 'Activities',
          rowCount: 1000,
          columnCount: 9,
          frozenRowCount: 1,
          protectedRanges: [],
          conditionalFormats: [rule('=ISNUMBER(SEARCH("conflict",$H2))'), rule('=ISNUMBER(SEARCH("error",$H2))'), rule('=A2>3')],
        },
        { ...empty.sheets[0]!, sheetId: 3, title: 'Allowed tags', frozenRowCount: 1 },
      ],
      layoutMetadata: undefined,
    }
    const again = planLayout(
      [activities, allowed],
      options,
      state,
      new Map([
        ['Activities', activities.columns.map((c) => c.name)],
        ['Allowed tags', ['Applies to', 'Tags']],
      ]),
    )
    expect(again.requests.filter((r) => r.deleteConditionalFormatRule).map((r) => r.deleteConditionalFormatRule!.index)).toEqual([1, 0])
    const added = again.requests
      .filter((r) => r.addConditionalFormatRule)
      .map((r) => r.addConditionalFormatRule!.rule!.booleanRule!.condition!.values![0]!.userEnteredValue)
    expect(added).toEqual(STATUS_RULES.map((r) => statusRuleFormula(r.word, 7, 1)))
  })
})

describe('layout hash and state', () => {
  it('is current only when the hash matches and every tab exists', () => {
    const hash = layoutHash(tabs, options)
    const sheets = tabs.map((t, i) => ({ ...empty.sheets[0]!, sheetId: i + 1, title: t.title }))
    expect(layoutIsCurrent(tabs, options, { timeZone: options.timeZone, sheets, layoutMetadata: { metadataId: 1, value: hash } })).toBe(
      true,
    )
    expect(
      layoutIsCurrent(tabs, options, {
        timeZone: options.timeZone,
        sheets: sheets.slice(1),
        layoutMetadata: { metadataId: 1, value: hash },
      }),
    ).toBe(false)
    expect(
      layoutIsCurrent(tabs, { timeZone: 'UTC' }, { timeZone: options.timeZone, sheets, layoutMetadata: { metadataId: 1, value: hash } }),
    ).toBe(false)
  })

  it('reads sheet id 0 that proto3 JSON leaves out', () => {
    const state = readSpreadsheetState({
      properties: { timeZone: 'Etc/GMT' },
      sheets: [{ properties: { title: 'Sheet1', gridProperties: { rowCount: 1000, columnCount: 26 } } }],
      developerMetadata: [{ metadataId: 4, metadataKey: LAYOUT_METADATA_KEY, metadataValue: 'abc' }],
    })
    expect(state.sheets[0]).toMatchObject({ sheetId: 0, title: 'Sheet1', frozenRowCount: 0 })
    expect(state.layoutMetadata).toEqual({ metadataId: 4, value: 'abc' })
  })

  it('picks sheet ids that are not in use', () => {
    const first = newSheetId('Activities', new Set())
    expect(newSheetId('Activities', new Set([first]))).not.toBe(first)
    expect(newSheetId('Activities', new Set())).toBe(first)
  })
})

// Through the real client against the Sheets fake; `tabs` here lists the fake spreadsheet's tabs.
describe('the layout a manager opens on Google', () => {
  const ROOT = 'http://sheets.test/'
  const TOKEN = 'static-test-token'
  const server = setupServer()
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
  afterAll(() => server.close())

  const TABS: TabSpec[] = [activitiesTab(), allowedTagsTab(), syncLogTab()]
  const LAYOUT = { timeZone: 'Europe/Berlin' }

  function setup(): { store: SheetsStore; spreadsheetId: string; sheet: Spreadsheet } {
    const store = createSheetsStore({ staticTokens: [TOKEN], quota: false })
    server.resetHandlers(mswHandlerFor(ROOT, createSheetsHandler(store)))
    const spreadsheetId = store.createSpreadsheet().spreadsheetId
    const sheet = createGoogleSpreadsheet({ spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
    return { store, spreadsheetId, sheet }
  }

  const api = () => directClient(signInWithStaticToken(TOKEN).client, ROOT)

  async function tabs(spreadsheetId: string) {
    const { data } = await api().spreadsheets.get({ spreadsheetId, fields: 'sheets(properties(sheetId,title),basicFilter)' })
    return data.sheets ?? []
  }

  describe('the empty default tab', () => {
    it('is removed when the tool sets the spreadsheet up, so Activities is the first tab', async () => {
      const s = setup()
      await s.sheet.ensureLayout(TABS, LAYOUT)
      expect((await tabs(s.spreadsheetId)).map((t) => t.properties?.title)).toEqual(['Activities', 'Allowed tags', 'Sync log'])
    })

    it('stays when someone typed into it', async () => {
      const s = setup()
      await api().spreadsheets.values.update({
        spreadsheetId: s.spreadsheetId,
        range: 'Sheet1!C7',
        valueInputOption: 'RAW',
        requestBody: { values: [['my notes']] },
      })
      await s.sheet.ensureLayout(TABS, LAYOUT)
      expect((await tabs(s.spreadsheetId)).map((t) => t.properties?.title)).toEqual(['Sheet1', 'Activities', 'Allowed tags', 'Sync log'])
    })

    it('stays when the spreadsheet already had the tool’s tabs, or other tabs', async () => {
      const s = setup()
      await api().spreadsheets.batchUpdate({
        spreadsheetId: s.spreadsheetId,
        requestBody: { requests: [{ addSheet: { properties: { title: 'Budget' } } }] },
      })
      await s.sheet.ensureLayout(TABS, LAYOUT)
      expect((await tabs(s.spreadsheetId)).map((t) => t.properties?.title)).toEqual([
        'Sheet1',
        'Budget',
        'Activities',
        'Allowed tags',
        'Sync log',
      ])
    })
  })

  describe('filter, counts and zone', () => {
    it('puts a basic filter on Activities only, and keeps a manager’s criteria when the layout changes', async () => {
      const s = setup()
      await s.sheet.ensureLayout(TABS, LAYOUT)
      const laid = await tabs(s.spreadsheetId)
      const activities = laid.find((t) => t.properties?.title === 'Activities')!
      expect(activities.basicFilter?.range).toMatchObject({ startRowIndex: 0, startColumnIndex: 0 })
      expect(laid.filter((t) => t.basicFilter).map((t) => t.properties?.title)).toEqual(['Activities'])
      const sheetId = activities.properties?.sheetId ?? 0
      const criteria = { '0': { hiddenValues: ['DOMAIN\\someone'] } }
      await api().spreadsheets.batchUpdate({
        spreadsheetId: s.spreadsheetId,
        requestBody: { requests: [{ setBasicFilter: { filter: { range: { sheetId }, criteria } } }] },
      })
      // Another zone is another layout: it is applied again, the filter left alone.
      expect((await s.sheet.ensureLayout(TABS, { timeZone: 'Europe/Paris' })).changed).toBe(true)
      const after = (await tabs(s.spreadsheetId)).find((t) => t.properties?.title === 'Activities')!
      expect(after.basicFilter?.criteria).toEqual(criteria)
    })

    it('shows Sync log counts as integers and its times with the zone they are in', async () => {
      const s = setup()
      await s.sheet.ensureLayout(TABS, LAYOUT)
      await api().spreadsheets.values.update({
        spreadsheetId: s.spreadsheetId,
        range: "'Sync log'!A2:E2",
        valueInputOption: 'RAW',
        requestBody: { values: [[46349.5, 'r1', 'export', 'Done', 925]] },
      })
      const { data } = await api().spreadsheets.values.get({ spreadsheetId: s.spreadsheetId, range: "'Sync log'!A2:E2" })
      expect(data.values?.[0]).toEqual(['2026-11-23 12:00 Europe/Berlin', 'r1', 'export', 'Done', '925'])
    })
  })

  describe('rows past the grid stay in the filter', () => {
    it('grows the Activities filter with the rows the tool inserts, past the first 1,000', async () => {
      const s = setup()
      await s.sheet.ensureLayout(TABS, LAYOUT)
      const basis = await s.sheet.read(['Activities'])
      const row = (n: number) => ['DOMAIN\\u', 46300 + n, 0.375, 0.4, 0.025, 'A, B', '', '', false, '', `key/${n}`, '']
      await s.sheet.write([{ tab: 'Activities', keyColumn: 10, appends: Array.from({ length: 1200 }, (_, i) => row(i + 1)) }], basis)
      const activities = (await tabs(s.spreadsheetId)).find((t) => t.properties?.title === 'Activities')!
      expect(activities.basicFilter?.range?.endRowIndex).toBe(2200)
    })
  })
})
