import type { sheets_v4 } from '@googleapis/sheets'
import { describe, expect, it } from 'vitest'
import { isTimelineSheetsError } from '../../src/errors.ts'
import type { TabSpec } from '../../src/sheets/port.ts'
import {
  LAYOUT_METADATA_KEY,
  layoutHash,
  layoutIsCurrent,
  newSheetId,
  numberFormatFor,
  planLayout,
  readSpreadsheetState,
  googleColor,
  type SpreadsheetState,
} from '../../src/sheets/google/layout.ts'
import { STATUS_RULES, statusRuleFormula } from '../../src/core/status.ts'

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

  it('colours rows by the word their status starts with, one rule per word of the core (issue 11)', () => {
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

describe('issue 11: status rules of an earlier version', () => {
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
