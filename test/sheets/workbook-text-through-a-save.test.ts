/**
 * Text a workbook save must keep exactly as it is, in rows nobody touched —
 * emoji wherever they fall in the saved XML, control characters, a literal `_x0001_`, U+FFFE, a lone surrogate.
 */
import { describe, expect, it } from 'vitest'
import { excelEscapeText } from '../../src/sheets/workbook/xml-text.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { CONTRACT_TABS } from '../contract/spreadsheet-contract.ts'
import { createWorkbookFixture } from './workbook-fixture.ts'

describe('text through a workbook save', () => {
  it('comes back exactly as written, in every one of 3,000 rows', async () => {
    const fixture = await createWorkbookFixture()
    try {
      const sheet = fixture.spreadsheet
      await sheet.ensureLayout(CONTRACT_TABS, { timeZone: 'UTC' })
      const odd = [
        'bell\u0007 and tab\tand NUL\u0000',
        'typed _x0001_ and _x005F_ and _x000a_',
        'not a char \ufffe\uffff',
        'lone \ud800 high and \udc00 low',
        'CR\r\nLF\nend',
      ]
      const notes = Array.from(
        { length: 3000 },
        (_, i) => `${i} ${'😀é漢'.repeat(1 + (i % 37))} ${odd[i % odd.length]} ${'x'.repeat(i % 101)}`,
      )
      const basis = await sheet.read(['Activities'])
      await sheet.write(
        [{ tab: 'Activities', appends: notes.map((n, i) => ['alice', 45300, 0.5, 0.6, null, 'T', null, n, false, null, `k/${i}`]) }],
        basis,
      )
      const rows = (await createWorkbookSpreadsheet({ path: fixture.file }).read(['Activities'])).tabs['Activities']!.rows
      const wrong = rows.map((r, i) => (r[7] === notes[i] ? undefined : i)).filter((i) => i !== undefined)
      expect(wrong).toEqual([])
    } finally {
      await fixture.cleanup()
    }
  })

  it('escapes what XML cannot hold the way Excel does', () => {
    expect(excelEscapeText('a\u0001b')).toBe('a_x0001_b')
    expect(excelEscapeText('_x0041_')).toBe('_x005F_x0041_')
    expect(excelEscapeText('\ud83d\ude00 stays, \ud800 alone does not')).toBe('\ud83d\ude00 stays, _xD800_ alone does not')
    expect(excelEscapeText('plain text_with_underscores')).toBe('plain text_with_underscores')
  })
})
