/**
 * The workbook backend's row scanner and renumbering (issue 10: hand-written instead of regular
 * expressions), on rows as other programs write them.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cellContent, parseRow } from '../../src/sheets/workbook/sheet-xml.ts'
import { renumberRow } from '../../src/sheets/workbook/sheet-write.ts'

describe('parseRow', () => {
  it('reads cells whatever the attribute order, quotes, prefix or spacing', () => {
    const row = parseRow(
      `<x:row spans='1:3' r='7'><x:c s="2" r="B7" t="s"><x:v>4</x:v></x:c><x:c r = "D7"/><x:c\tt="inlineStr" r="E7"><x:is><x:t>a &lt; b</x:t></x:is></x:c></x:row>`,
      0,
    )
    expect(row.number).toBe(7)
    expect(row.cells.map((cell) => [cell.column, cell.type, cell.style])).toEqual([
      [1, 's', 2],
      [3, undefined, undefined],
      [4, 'inlineStr', undefined],
    ])
    expect(cellContent(row.cells[0]!).value).toBe('4')
    expect(cellContent(row.cells[2]!).inline).toBe('a < b')
  })

  it('numbers a row and its cells without references after the ones before', () => {
    const row = parseRow('<row><c><v>1</v></c><c t="b"><v>0</v></c></row>', 4)
    expect(row.number).toBe(5)
    expect(row.cells.map((cell) => cell.column)).toEqual([0, 1])
  })

  it('does not take an attribute whose name ends in r or s for r or s', () => {
    const row = parseRow('<row r="3" customHeight="1" xr:r="9"><c xr:s="5" ss="6" r="C3"><v>1</v></c></row>', 0)
    expect(row.number).toBe(3)
    expect(row.cells[0]).toMatchObject({ column: 2, style: undefined })
  })
})

describe('renumberRow', () => {
  it('moves the row, its cells and an array formula’s range, and no text inside cells', () => {
    const xml =
      '<row r="12" spans="1:4"><c r="A12" t="inlineStr"><is><t>see A12" and r="12"</t></is></c>' +
      `<c r='B12' s="3"><f t="array" ref="B12:C12">A12*2</f><v>4</v></c><c r="D12"/></row>`
    expect(renumberRow(xml, 12, 9)).toBe(
      '<row r="9" spans="1:4"><c r="A9" t="inlineStr"><is><t>see A12" and r="12"</t></is></c>' +
        `<c r='B9' s="3"><f t="array" ref="B9:C9">A12*2</f><v>4</v></c><c r="D9"/></row>`,
    )
  })

  it('moves prefixed elements and leaves a row without references as it was', () => {
    expect(renumberRow('<x:row r="5"><x:c r="A5"><x:v>1</x:v></x:c></x:row>', 5, 4)).toBe(
      '<x:row r="4"><x:c r="A4"><x:v>1</x:v></x:c></x:row>',
    )
    expect(renumberRow('<row><c><v>1</v></c></row>', 5, 4)).toBe('<row><c><v>1</v></c></row>')
  })
})

describe('renumberRow, issue 10: a plain row (no prefix, no formula) is renumbered as any other row', () => {
  const TEXTS = ['plain', 'see A12" and r="12"', 'a &lt;c r="B12"&gt; b', 'Café ☕ 😀', '12', '']
  const cellXml = fc
    .record({
      text: fc.constantFrom(...TEXTS),
      quote: fc.constantFrom('"', "'"),
      space: fc.constantFrom('', ' '),
      reference: fc.constantFrom('r', 'none', 'letters'),
      kind: fc.constantFrom('inline', 'value', 'empty'),
    })
    .map(({ text, quote, space, reference, kind }) => (column: string, row: number) => {
      const r = reference === 'none' ? '' : ` r${space}=${space}${quote}${column}${reference === 'letters' ? '' : row}${quote}`
      if (kind === 'empty') return `<c${r} s="3"/>`
      if (kind === 'value') return `<c${r}><v>${row}</v></c>`
      return `<c${r} t="inlineStr"><is><t>${text}</t></is></c>`
    })

  it('gives what the element-by-element renumbering gives (forced by a prefix, then taken off)', () => {
    fc.assert(
      fc.property(
        fc.array(cellXml, { maxLength: 14 }),
        fc.integer({ min: 1, max: 1_048_576 }),
        fc.integer({ min: 1, max: 1_048_576 }),
        fc.boolean(),
        (cells, from, target, numbered) => {
          const body = cells.map((cell, i) => cell(String.fromCharCode(65 + i), from)).join('')
          const plain = `<row${numbered ? ` r="${from}"` : ''} spans="1:14">${body}</row>`
          const prefixed = plain.replace(/<(\/?)(row|c|v|is|t)\b/g, '<$1x:$2')
          expect(renumberRow(prefixed, from, target).replace(/<(\/?)x:/g, '<$1')).toBe(renumberRow(plain, from, target))
        },
      ),
      { numRuns: 500 },
    )
  })
})
