import { describe, expect, it } from 'vitest'
import {
  ACTIVITY_COLUMN,
  activitiesTab,
  allowedTagsTab,
  columnIndex,
  columnLetters,
  syncLogTab,
  timelineTab,
  validateHeader,
} from '../../src/core/columns.ts'
import { HEADER } from './fixtures.ts'

describe('tab specs', () => {
  it('lays out Activities with tool-owned columns hidden and protected', () => {
    const tab = activitiesTab()
    expect(tab.columns.map((c) => c.name)).toEqual([
      'User',
      'Date',
      'Start',
      'End',
      'Duration',
      'Tags',
      'Labels',
      'Notes',
      'Delete',
      'Status',
      'Key',
      'Base',
    ])
    expect(tab.statusColumn).toBe('Status')
    const by = Object.fromEntries(tab.columns.map((c) => [c.name, c]))
    expect(by.Date?.kind).toBe('date')
    expect(by.Start?.kind).toBe('time')
    expect(by.Duration?.kind).toBe('duration')
    expect(by.Delete?.kind).toBe('checkbox')
    expect(by.Tags?.dropdown).toEqual({ tab: 'Allowed tags', column: 'Tags' })
    expect(by.Key).toMatchObject({ hidden: true, protected: true })
    expect(by.Base).toMatchObject({ hidden: true, protected: true })
    expect(by.Status).toMatchObject({ protected: true })
    expect(by.Status?.hidden).toBeUndefined()
    expect(activitiesTab('Anna').title).toBe('Anna')
  })

  it('lays out Allowed tags, Sync log and read-only timeline tabs', () => {
    expect(allowedTagsTab().columns.map((c) => c.name)).toEqual(['Applies to', 'Tags', 'Status'])
    const log = syncLogTab()
    expect(log.readOnly).toBe(true)
    expect(log.columns.map((c) => c.name)).toEqual([
      'When',
      'Run',
      'Command',
      'Result',
      'Created',
      'Updated',
      'Deleted',
      'Conflicts',
      'Invalid',
      'Message',
    ])
    const other = timelineTab('Computer usage')
    expect(other).toMatchObject({ title: 'Computer usage', readOnly: true })
    expect(other.columns.map((c) => c.name)).toEqual(['User', 'Date', 'Start', 'End', 'Duration', 'Name'])
  })
})

describe('finding columns by header', () => {
  it('finds a column wherever it is, ignoring case and spaces', () => {
    expect(columnIndex(['Notes', ' key ', 'Date'], ACTIVITY_COLUMN.key)).toBe(1)
    expect(columnIndex(['Notes'], ACTIVITY_COLUMN.key)).toBe(-1)
  })

  it('accepts reordered columns and keeps extra ones', () => {
    const header = ['Billing code', ...[...HEADER].reverse(), null, 'Comment']
    const check = validateHeader(header, activitiesTab())
    expect(check.ok).toBe(true)
    if (check.ok) {
      expect(check.layout.index.Base).toBe(1)
      expect(check.layout.index.User).toBe(12)
      expect(check.layout.extra).toEqual([0, 13, 14])
      expect(check.layout.width).toBe(15)
    }
  })

  it('reports a missing column', () => {
    const header = HEADER.filter((h) => h !== 'Key')
    expect(validateHeader(header, activitiesTab())).toEqual({
      ok: false,
      problems: [
        { kind: 'missing', column: 'Key', message: expect.stringMatching(/^Column "Key" is missing from the Activities tab header/) },
      ],
    })
  })

  it('reports a renamed column with its letter', () => {
    const header = HEADER.map((h) => (h === 'Notes' ? 'Comments' : h))
    expect(validateHeader(header, activitiesTab())).toEqual({
      ok: false,
      problems: [
        {
          kind: 'renamed',
          column: 'Notes',
          found: 'Comments',
          position: 7,
          message: 'Column "Notes" is missing; column H is headed "Comments" — rename it back to "Notes"',
        },
      ],
    })
  })

  it('reports a duplicated column', () => {
    const check = validateHeader([...HEADER, 'tags'], activitiesTab())
    expect(check).toEqual({
      ok: false,
      problems: [
        { kind: 'duplicated', column: 'Tags', positions: [5, 12], message: 'Column "Tags" appears 2 times (columns F, M); keep one' },
      ],
    })
  })

  it('reports an empty header row', () => {
    expect(validateHeader([], activitiesTab())).toMatchObject({ ok: false, problems: [{ kind: 'no-header' }] })
  })

  it('names columns by letter', () => {
    expect([0, 25, 26, 27, 701, 702].map(columnLetters)).toEqual(['A', 'Z', 'AA', 'AB', 'ZZ', 'AAA'])
  })
})
